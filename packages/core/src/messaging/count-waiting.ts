import type { CoreDeps } from "../deps.ts";
import type { OperationContext } from "../operation.ts";

/** The body of GET /v1/message-counts. */
export interface WaitingCountsView {
  recipients: { ai_account_id: string; friendly_name: string; pending: number; held: number }[];
  dead_lettered: number;
  counted_at: string;
}

/**
 * GET /v1/message-counts: what waits in the caller's workspace, for an overview: each recipient
 * with pending or held messages not yet expired (by the store's clock), and the dead letters.
 */
export async function countWaitingMessages(deps: CoreDeps, ctx: OperationContext): Promise<WaitingCountsView> {
  const now = await deps.stores.messages.now();
  const counts = await deps.stores.messages.countWaiting({ workspaceId: ctx.principal.workspace.id, now });
  return {
    recipients: counts.recipients.map((r) => ({ ai_account_id: r.accountId, friendly_name: r.friendlyName, pending: r.pending, held: r.held })),
    dead_lettered: counts.deadLettered,
    counted_at: now.toISOString(),
  };
}
