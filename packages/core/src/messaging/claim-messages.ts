import { verifyCaller } from "../access/authenticate.ts";
import { callerGuardOf } from "../access/caller-guard.ts";
import type { CoreDeps } from "../deps.ts";
import type { OperationContext } from "../operation.ts";
import { parseDurationMs } from "../time/duration.ts";
import type { MessageRecord } from "./message.ts";
import { parseBoundedInteger } from "./message-fields.ts";
import { envelopeView, type EnvelopeView } from "./message-views.ts";
import { MESSAGING_LIMITS } from "./messaging-limits.ts";
import { resolveClaimThread } from "./threads.ts";
import { credentialCaller } from "../access/principal.ts";

/** The body of get-pending. */
export interface ClaimMessagesInput {
  max?: number;
  visibility_timeout?: string;
  wait?: string;
  /** Claim only this thread's messages (a long poll for a reply; DESIGN §2c). */
  thread_id?: string | null;
}

/** One claimed message: its envelope, payload and lease. */
export interface ClaimedItem {
  envelope: EnvelopeView;
  payload: unknown;
  lease: { lease_id: string; lease_expires_at: string };
}

/**
 * POST /v1/messages/get-pending: claims up to `max` (1..100, default 10) of the caller's own
 * claimable messages under a lease of `visibility_timeout` (PT10S..PT600S, default PT120S), in
 * dequeue order. With `wait` (PT0S..PT20S, default PT0S) and nothing to claim, long-polls: parks
 * on the notifier until woken or the deadline passes (or ctx.signal aborts), then claims again;
 * never polls in a tight loop. Messages past the workspace's max_deliveries are dead-lettered by
 * the claim instead of delivered. With `thread_id`, only that thread's messages are claimed; the
 * caller must have sent or received one of them (else 404). Returns `{ items }`, possibly empty.
 * @throws DomainError SVC_MALFORMED_REQUEST (details.field max | visibility_timeout | wait |
 *   thread_id), SVC_RESOURCE_NOT_FOUND (thread_id).
 */
export async function claimMessages(deps: CoreDeps, ctx: OperationContext, input: ClaimMessagesInput): Promise<{ items: ClaimedItem[] }> {
  const max = parseBoundedInteger(input.max, "max", { min: 1, max: MESSAGING_LIMITS.claimMaxLimit, default: MESSAGING_LIMITS.claimMaxDefault });
  const visibilityTimeoutMs = input.visibility_timeout === undefined ? MESSAGING_LIMITS.visibilityTimeoutDefaultMs : parseDurationMs(input.visibility_timeout, "visibility_timeout", { minMs: MESSAGING_LIMITS.visibilityTimeoutMinMs, maxMs: MESSAGING_LIMITS.visibilityTimeoutMaxMs });
  const waitMs = input.wait === undefined ? 0 : parseDurationMs(input.wait, "wait", { minMs: 0, maxMs: MESSAGING_LIMITS.waitMaxMs });
  let principal = credentialCaller(ctx.principal);
  const { workspace, account, credential } = principal;
  const deadline = deps.clock.now().getTime() + waitMs;
  const threadId = await resolveClaimThread(deps, { workspaceId: workspace.id, accountId: account.id, threadId: input.thread_id }).catch(async (e: unknown) => {
    // A refusal comes after a fresh read of the caller (whose own refusal wins).
    if (principal.callerCheckDeferred === true) await verifyCaller(deps, principal);
    throw e;
  });

  for (;;) {
    const auditIds = Array.from({ length: max }, () => deps.ids.next());
    const { claimed, deadLettered } = await deps.stores.messages.claimBatch({ workspaceId: workspace.id, recipientId: account.id, max, visibilityTimeoutMs, maxDeliveries: workspace.maxDeliveries, auditIds, requestId: ctx.requestId, credentialId: credential.id, caller: callerGuardOf(principal), ...(threadId === null ? {} : { threadId }) });
    // claimBatch is one statement on the pool's stores: what it returns has committed.
    if (deadLettered.length > 0) deps.meter?.count("dead_lettered", deadLettered.length, workspace.id);
    if (claimed.length > 0) {
      deps.meter?.count("claimed", claimed.length, workspace.id);
      return { items: claimed.map(claimedItem) };
    }
    // Nothing claimed: the caller guard may have failed. Read the caller afresh (throws its refusal) before answering or waiting.
    if (principal.callerCheckDeferred === true) {
      principal = await verifyCaller(deps, principal);
      continue;
    }
    // Candidates that were dead-lettered instead may hide claimable ones behind them: look again at once.
    if (deadLettered.length > 0) continue;
    const remaining = deadline - deps.clock.now().getTime();
    if (remaining <= 0 || ctx.signal?.aborted) return { items: [] };
    await deps.notifier.waitForMessages({ workspaceId: workspace.id, recipientId: account.id, timeoutMs: remaining, ...(ctx.signal ? { signal: ctx.signal } : {}) });
    if (ctx.signal?.aborted) return { items: [] };
  }
}

function claimedItem(m: MessageRecord): ClaimedItem {
  return { envelope: envelopeView(m), payload: m.payload, lease: { lease_id: m.leaseId ?? "", lease_expires_at: m.visibleAt.toISOString() } };
}
