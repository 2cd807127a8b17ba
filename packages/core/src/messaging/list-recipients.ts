import type { CoreDeps } from "../deps.ts";
import { keysetPage } from "../cursors/paged-list.ts";
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
  const workspaceId = ctx.principal.workspace.id;
  const page = { resource: "recipients", filters: {}, limit: input.limit, cursor: input.cursor };
  return keysetPage(deps, ctx, page, (after, limit) => deps.stores.accounts.list({ workspaceId, states: ["active", "frozen"], after, limit }), (a) => ({ ai_account_id: a.id, friendly_name: a.friendlyName }));
}
