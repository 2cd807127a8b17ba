import type { CoreDeps } from "../deps.ts";
import { decodeCursor } from "./cursor.ts";
import { pageOf } from "./page.ts";
import { parsePageLimit } from "./page-limit.ts";
import type { OperationContext } from "../operation.ts";

// The paging of list operations, in one place: the cursor is bound to the resource, the
// caller's workspace and every filter (dates as ISO text, lists comma-joined), and holds either
// an offset (ranked or sorted lists) or the last item's id (keyset lists).

/** Filter values of a list query as they are bound into its cursor. */
export type ListFilters = Readonly<Record<string, string | number | boolean | Date | readonly string[] | null>>;

function cursorFilters(filters: ListFilters): Record<string, string | number | boolean | null> {
  return Object.fromEntries(Object.entries(filters).map(([k, v]) => [k, v instanceof Date ? v.toISOString() : Array.isArray(v) ? v.join(",") : (v as string | number | boolean | null)]));
}

/** A list request's paging: `limit` / `cursor` as they arrived. */
export interface PageRequest {
  resource: string;
  filters: ListFilters;
  limit: unknown;
  cursor: string | null | undefined;
}

/**
 * One page of an offset-paged list: `fetch(offset, limit)` returns up to `limit + 1` rows from
 * `offset`; the page is the first `limit`, each passed through `view`.
 * @throws DomainError SVC_MALFORMED_REQUEST (limit), SVC_CURSOR_EXPIRED.
 */
export async function offsetPage<T, V>(deps: Pick<CoreDeps, "secrets" | "clock">, ctx: OperationContext, req: PageRequest, fetch: (offset: number, limit: number) => Promise<T[]>, view: (row: T) => V): Promise<{ items: V[]; next_cursor: string | null }> {
  const limit = parsePageLimit(req.limit);
  const filters = cursorFilters(req.filters);
  const after = decodeCursor(deps, { resource: req.resource, workspaceId: ctx.principal.workspace.id, filters }, req.cursor);
  const offset = after === null ? 0 : Number(after);
  const rows = await fetch(offset, limit);
  return pageOf(deps, ctx, req.resource, filters as Record<string, string | null>, rows.length > limit ? String(offset + limit) : null, rows.slice(0, limit).map(view));
}

/**
 * One page of a keyset-paged list: `fetch(after, limit)` returns up to `limit + 1` rows after
 * the id `after` (null: the first page); the next page starts after the page's last id.
 * @throws DomainError SVC_MALFORMED_REQUEST (limit), SVC_CURSOR_EXPIRED.
 */
export async function keysetPage<T, V>(deps: Pick<CoreDeps, "secrets" | "clock">, ctx: OperationContext, req: PageRequest, fetch: (after: string | null, limit: number) => Promise<T[]>, view: (row: T) => V, idOf: (row: T) => string = (row) => (row as { id: string }).id): Promise<{ items: V[]; next_cursor: string | null }> {
  const limit = parsePageLimit(req.limit);
  const filters = cursorFilters(req.filters);
  const after = decodeCursor(deps, { resource: req.resource, workspaceId: ctx.principal.workspace.id, filters }, req.cursor);
  const rows = await fetch(after, limit);
  const page = rows.slice(0, limit);
  return pageOf(deps, ctx, req.resource, filters as Record<string, string | null>, rows.length > limit && page.length > 0 ? idOf(page[page.length - 1] as T) : null, page.map(view));
}

/**
 * One page of a list whose store pages itself: `fetch(after, limit)` returns the page and the
 * id the next page starts after (null on the last page).
 * @throws DomainError SVC_MALFORMED_REQUEST (limit), SVC_CURSOR_EXPIRED.
 */
export async function storePage<T, V>(deps: Pick<CoreDeps, "secrets" | "clock">, ctx: OperationContext, req: PageRequest, fetch: (after: string | null, limit: number) => Promise<{ items: T[]; nextAfter: string | null }>, view: (row: T) => V): Promise<{ items: V[]; next_cursor: string | null }> {
  const limit = parsePageLimit(req.limit);
  const filters = cursorFilters(req.filters);
  const after = decodeCursor(deps, { resource: req.resource, workspaceId: ctx.principal.workspace.id, filters }, req.cursor);
  const { items, nextAfter } = await fetch(after, limit);
  return pageOf(deps, ctx, req.resource, filters as Record<string, string | null>, nextAfter, items.map(view));
}
