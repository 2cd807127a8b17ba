import type { CoreDeps } from "../deps.ts";
import type { OperationContext } from "../operation.ts";
import { encodeCursor } from "./cursor.ts";

/**
 * A page of a list operation: its items and the signed cursor of the next page (null on the
 * last), bound to the resource, the caller's workspace and every filter.
 */
export function pageOf<T>(deps: Pick<CoreDeps, "secrets" | "clock">, ctx: OperationContext, resource: string, filters: Record<string, string | null>, nextAfter: string | null, items: T[]): { items: T[]; next_cursor: string | null } {
  return { items, next_cursor: nextAfter === null ? null : encodeCursor(deps, { resource, workspaceId: ctx.principal.workspace.id, filters }, nextAfter) };
}
