import { verifyCaller } from "../access/authenticate.ts";
import { authorize } from "../access/authorize.ts";
import type { CredentialPrincipal, Principal } from "../access/model.ts";
import { credentialCaller } from "../access/principal.ts";
import type { CoreDeps } from "../deps.ts";
import type { OperationAuth } from "../operation.ts";
import { enforceRateLimit } from "../rate-limits/enforce-rate-limit.ts";
import type { RateLimitStatus } from "../rate-limits/rate-limit-status.ts";
import type { Priority } from "./message.ts";
import { envelopeView, type AccountRef, type EnvelopeView } from "./message-views.ts";

/** Each count of the inbox stops here: a count equal to it means "at least this many" (the read stays bounded however deep the queue). */
export const INBOX_COUNT_LIMIT = 1_000;

/** Who may read and watch an inbox: an operational (or higher) credential with the scope that claims (what the inbox shows is what get_pending would hand out). */
export const INBOX_AUTH: OperationAuth = { kind: "credential", tier: "operational", scope: "get_pending" };

/**
 * The caller's inbox: what it could claim now, without claiming it and without any payload.
 * `claimable` counts by priority (urgent first), each count stopping at `count_limit`;
 * `oldest` is the envelope of the claimable message accepted first (null when none).
 */
export interface InboxView {
  ai_account: AccountRef;
  claimable: Record<Priority, number>;
  count_limit: number;
  oldest: EnvelopeView | null;
  as_of: string;
}

/** What reading or watching the inbox needs from the edge: the caller and, for rate-limit headers, a listener. */
export interface InboxAccess {
  principal: Principal;
  onRateLimit?: (status: RateLimitStatus) => void;
}

/**
 * Admits the caller to its own inbox (a read, or a subscription to its changes): the account
 * and workspace read afresh when the principal came from the authenticator's cache, the call
 * counted against the rate limits when `cost` is 1, then tier and scope (`INBOX_AUTH`).
 * Returns the caller, checked. Only the caller's own inbox exists for it: nothing names another.
 * @throws DomainError SVC_UNAUTHENTICATED, SVC_FROZEN, SVC_WORKSPACE_CLOSED, SVC_RATE_LIMITED,
 *   SVC_TIER_INSUFFICIENT, SVC_SCOPE_INSUFFICIENT (a person's session included).
 */
export async function admitToInbox(deps: CoreDeps, access: InboxAccess, cost: 0 | 1): Promise<CredentialPrincipal> {
  const principal = await verifyCaller(deps, credentialCaller(access.principal));
  if (deps.rateLimiter !== undefined) {
    const { status, refusal } = await enforceRateLimit({ stores: deps.stores, clock: deps.clock, rateLimiter: deps.rateLimiter }, principal, cost);
    access.onRateLimit?.(status);
    if (refusal !== null) throw refusal;
  }
  authorize(principal, INBOX_AUTH, false);
  return principal;
}

/**
 * Reads the caller's inbox (`InboxView`): one bounded read of the claim index, nothing locked,
 * nothing claimed, no payload read. Counted like one tool call.
 * @throws DomainError as `admitToInbox`.
 */
export async function readInbox(deps: CoreDeps, access: InboxAccess): Promise<InboxView> {
  const { account, workspace } = await admitToInbox(deps, access, 1);
  const snapshot = await deps.stores.messages.inboxOf({ workspaceId: workspace.id, recipientId: account.id, countLimit: INBOX_COUNT_LIMIT });
  const c = snapshot.claimable;
  return {
    ai_account: { ai_account_id: account.id, friendly_name: account.friendlyName },
    claimable: { urgent: c.urgent, high: c.high, normal: c.normal, low: c.low },
    count_limit: INBOX_COUNT_LIMIT,
    oldest: snapshot.oldest === null ? null : envelopeView(snapshot.oldest),
    as_of: snapshot.now.toISOString(),
  };
}
