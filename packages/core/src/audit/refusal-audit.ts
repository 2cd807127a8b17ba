import type { ErrorCode } from "../errors.ts";
import type { CoreDeps } from "../deps.ts";
import type { OperationContext } from "../operation.ts";
import { auditEntry } from "./audit-entry.ts";

/**
 * Appends the audit row of a refused request, outside any transaction (the refused change
 * rolled back, the refusal stays on record). Activity names end in `_refused`; details carry
 * the SVC_ code.
 */
export async function auditRefusal(
  deps: Pick<CoreDeps, "ids" | "clock" | "stores">,
  ctx: OperationContext,
  p: { activity: string; code: ErrorCode; subjectType: string; subjectId: string; details?: Record<string, unknown>; operatorSignificant?: boolean },
): Promise<void> {
  await deps.stores.audit.append({
    entry: auditEntry(deps, ctx.principal, { ...p, workspaceId: ctx.principal.workspace.id, occurredAt: deps.clock.now(), details: { code: p.code, ...p.details }, requestId: ctx.requestId }),
  });
}
