import type { CoreDeps } from "../deps.ts";
import { decodeCursor, encodeCursor } from "../cursors/cursor.ts";
import { parsePageLimit } from "../cursors/page-limit.ts";
import type { OperationContext } from "../operation.ts";

/** An AI account the caller may address. */
export interface RecipientItem {
  ai_account_id: string;
  friendly_name: string;
}

/**
 * GET /v1/recipients: the AI accounts of the caller's workspace a send can resolve (every
 * account that is not revoked, the caller included), in creation order, paged.
 * @throws DomainError SVC_MALFORMED_REQUEST (limit), SVC_CURSOR_EXPIRED.
 */
export async function listRecipients(deps: CoreDeps, ctx: OperationContext, input: { limit?: unknown; cursor?: string | null }): Promise<{ items: RecipientItem[]; next_cursor: string | null }> {
  const limit = parsePageLimit(input.limit);
  const workspaceId = ctx.principal.workspace.id;
  const scope = { resource: "recipients", workspaceId, filters: {} };
  const after = decodeCursor(deps, scope, input.cursor);
  const rows = await deps.stores.accounts.list({ workspaceId, states: ["active", "frozen"], after, limit });
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  return {
    items: page.map((a) => ({ ai_account_id: a.id, friendly_name: a.friendlyName })),
    next_cursor: rows.length > limit && last ? encodeCursor(deps, scope, last.id) : null,
  };
}
