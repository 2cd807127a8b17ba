import type { CoreDeps } from "../deps.ts";
import type { OperationContext } from "../operation.ts";
import { parseDurationMs } from "../time/duration.ts";
import { leaseRefusal } from "./lease-refusal.ts";
import { messageAuditEntry } from "./message-audit.ts";
import { parseLeaseId, parseMessageId, parseOptionalText } from "./message-fields.ts";
import { MESSAGING_LIMITS } from "./messaging-limits.ts";
import { credentialCaller } from "../access/principal.ts";

/** The body (plus path id) of a nack. */
export interface NackMessageInput {
  message_id: string;
  lease_id: string;
  redeliver_after?: string;
  reason?: string | null;
}

/** The 200 body of a nack (DESIGN §2). */
export interface NackMessageResponse {
  message_id: string;
  state: "pending";
  available_at: string;
}

/**
 * POST /v1/messages/{message_id}/nack: declines a message the caller holds; it returns to
 * pending after `redeliver_after` (ISO duration, default PT0S, must fall before the message's
 * expiry). At most one nack per 30 s per message.
 * @throws DomainError SVC_MALFORMED_REQUEST (lease_id, redeliver_after, reason),
 *   SVC_NACK_RATE_LIMITED (retryAfterSeconds), and the refusals of `leaseRefusal`.
 */
export async function nackMessage(deps: CoreDeps, ctx: OperationContext, input: NackMessageInput): Promise<NackMessageResponse> {
  const messageId = parseMessageId(input.message_id);
  const leaseId = parseLeaseId(input.lease_id);
  const redeliverAfterMs = input.redeliver_after === undefined ? 0 : parseDurationMs(input.redeliver_after, "redeliver_after", { minMs: 0, maxMs: MESSAGING_LIMITS.redeliverAfterMaxMs });
  const reason = parseOptionalText(input.reason, "reason", MESSAGING_LIMITS.nackReasonMaxLength);
  const audit = messageAuditEntry(deps, ctx, { messageId, activity: "message.nacked", details: { lease_id: leaseId, redeliver_after_ms: redeliverAfterMs, ...(reason === null ? {} : { reason }) } });
  const r = await deps.stores.messages.nackIfHeld({ workspaceId: ctx.principal.workspace.id, messageId, recipientId: credentialCaller(ctx.principal).account.id, leaseId, redeliverAfterMs, minIntervalMs: MESSAGING_LIMITS.nackMinIntervalMs, audit });
  if (r.ok) {
    deps.meter?.count("nacked", 1, ctx.principal.workspace.id);
    ctx.onMessageSettled?.({ messageId, recipientName: r.message.recipientName, traceparent: r.message.traceparent });
  }
  if (r.ok) return { message_id: messageId, state: "pending", available_at: r.message.visibleAt.toISOString() };
  throw leaseRefusal({ op: { kind: "nack", redeliverAfterMs }, leaseId, snapshot: r.snapshot, now: r.now });
}
