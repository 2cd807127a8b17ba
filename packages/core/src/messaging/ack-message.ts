import { verifyCaller } from "../access/authenticate.ts";
import { callerGuardOf, type CallerGuard } from "../access/caller-guard.ts";
import type { CoreDeps } from "../deps.ts";
import type { OperationContext } from "../operation.ts";
import { leaseRefusal } from "./lease-refusal.ts";
import { messageAuditEntry } from "./message-audit.ts";
import { parseLeaseId, parseMessageId, parseOptionalText } from "./message-fields.ts";
import { MESSAGING_LIMITS } from "./messaging-limits.ts";
import { credentialCaller } from "../access/principal.ts";

/** The body (plus path id) of an ack. */
export interface AckMessageInput {
  message_id: string;
  lease_id: string;
  outcome_summary?: string | null;
}

/** The 200 body of an ack (DESIGN §2), the same on a repeat. */
export interface AckMessageResponse {
  message_id: string;
  state: "acknowledged";
  acknowledged_at: string;
}

/**
 * POST /v1/messages/{message_id}/ack: acknowledges a message the caller holds under a live
 * lease; the lease check is the store's guarded update. Repeating the ack with the same lease
 * returns the same 200 (with the original acknowledged_at).
 * @throws DomainError SVC_MALFORMED_REQUEST (lease_id, outcome_summary), and the refusals of
 *   `leaseRefusal`: SVC_RESOURCE_NOT_FOUND, SVC_EXPIRED, SVC_DEAD_LETTERED, SVC_LEASE_NOT_HELD,
 *   SVC_LEASE_EXPIRED.
 */
export async function ackMessage(deps: CoreDeps, ctx: OperationContext, input: AckMessageInput): Promise<AckMessageResponse> {
  const messageId = parseMessageId(input.message_id);
  const leaseId = parseLeaseId(input.lease_id);
  const outcomeSummary = parseOptionalText(input.outcome_summary, "outcome_summary", MESSAGING_LIMITS.outcomeSummaryMaxLength);
  const audit = messageAuditEntry(deps, ctx, { messageId, activity: "message.acknowledged", details: { lease_id: leaseId, ...(outcomeSummary === null ? {} : { outcome_summary: outcomeSummary }) } });
  const ack = (caller: CallerGuard | null) => deps.stores.messages.ackIfHeld({ workspaceId: ctx.principal.workspace.id, messageId, recipientId: credentialCaller(ctx.principal).account.id, leaseId, outcomeSummary, audit, caller });
  let r = await ack(callerGuardOf(ctx.principal));
  // Refused: the caller guard may have failed. Read the caller afresh (throws its refusal); if active, the ack is tried once more without the guard.
  if (!r.ok && credentialCaller(ctx.principal).callerCheckDeferred === true) {
    await verifyCaller(deps, ctx.principal);
    r = await ack(null);
  }
  if (r.ok) {
    deps.meter?.count("acknowledged", 1, ctx.principal.workspace.id);
    ctx.onMessageSettled?.({ messageId, recipientName: r.message.recipientName, traceparent: r.message.traceparent });
  }
  if (r.ok) return { message_id: messageId, state: "acknowledged", acknowledged_at: (r.message.acknowledgedAt ?? r.message.visibleAt).toISOString() };
  const s = r.snapshot;
  if (s !== null && s.state === "acknowledged" && s.leaseId === leaseId && s.acknowledgedAt !== null) {
    return { message_id: messageId, state: "acknowledged", acknowledged_at: s.acknowledgedAt.toISOString() };
  }
  throw leaseRefusal({ op: { kind: "ack" }, leaseId, snapshot: s, now: r.now });
}
