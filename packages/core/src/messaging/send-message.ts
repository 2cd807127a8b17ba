import { verifyCaller } from "../access/authenticate.ts";
import { callerGuardOf } from "../access/caller-guard.ts";
import type { CoreDeps } from "../deps.ts";
import { DomainError, isDomainError } from "../errors.ts";
import { IDEMPOTENCY_RETENTION_MS, type IdempotencyRecord } from "../idempotency/idempotency-record.ts";
import { replayOrConflict } from "../idempotency/replay.ts";
import { withContext, type OperationContext, type OperationResult } from "../operation.ts";
import { threadIdOf } from "./message.ts";
import { heldSendBody } from "./approvals.ts";
import { mailApprovers } from "./approval-mail.ts";
import { messageAuditEntry } from "./message-audit.ts";
import type { AccountRef } from "./message-views.ts";
import { prepareSend, type SendMessageInput } from "./prepare-send.ts";
import { auditSendRefusal } from "../screening/check-send-guards.ts";
import { checkPolicyGate, policyNotAcknowledged } from "../policies/workspace-policies.ts";
import { callerKey } from "../access/principal.ts";

/** The 201 body of a send (DESIGN §2); a send an approval policy holds says so (DESIGN §2c, `heldSendBody`). */
export interface SendMessageResponse {
  message_id: string;
  state: "pending" | "held_for_approval";
  accepted_at: string;
  expires_at: string;
  recipient: AccountRef;
  /** The thread the message is in (its own id when it starts one; DESIGN §2c). */
  thread_id: string;
}

/**
 * POST /v1/messages/send: checks the send (prepareSend), then stores the message, its
 * `message.sent` audit row and, when the caller sent an Idempotency-Key, the idempotency record
 * carrying the exact response, all in one atomic `acceptSend` (which also wakes the recipient's
 * long polls on commit).
 *
 * Idempotency: a key already stored replays the original status and body when the request's
 * fingerprint matches, and is a conflict otherwise. A concurrent send with the same key waits
 * for the first and replays it (the store serializes them). A key that is stored also wins over
 * a check that now fails (for example a recipient revoked since the original send).
 * A guard-rail refusal that is not a replay is audited (`message.send_refused`) outside the
 * send's transaction. The recipient's resolution may come from a per-process cache, the policy
 * gate and (for a deferred principal) the caller's account and workspace are checked by the
 * write itself, so a send whose recipient and caller are cached is one database round trip.
 * Every answer other than an accepted send comes after a fresh read of the caller.
 * @throws DomainError SVC_MALFORMED_REQUEST, SVC_RECIPIENT_RESOLUTION_FAILED, the guard refusals,
 *   SVC_IDEMPOTENCY_CONFLICT (details.original_request_id).
 */
export async function sendMessage(deps: CoreDeps, ctx: OperationContext, input: SendMessageInput): Promise<OperationResult> {
  // A second attempt only when the write's guards disagreed with what was read before it: a
  // cached resolution gone stale (renamed or revoked recipient), a policy gate that the write
  // found closed and the read then found open (acknowledged in between), or a caller guard
  // that failed while a fresh read finds the caller active (unfrozen in between).
  for (let attempt = 0; ; attempt++) {
    const outcome = await attemptSend(deps, ctx, input, { freshRecipient: attempt > 0 });
    if (outcome === "caller_refused") {
      // Throws the caller's refusal; when the caller is active after all, try again with the fresh read.
      ctx = withContext(ctx, { principal: await verifyCaller(deps, ctx.principal) });
      continue;
    }
    if (outcome !== "retry") return outcome;
    // Policies acknowledged and required again, over and over, between write and read.
    if (attempt >= 2) throw policyNotAcknowledged([]);
  }
}

async function attemptSend(deps: CoreDeps, ctx: OperationContext, input: SendMessageInput, opts: { freshRecipient: boolean }): Promise<OperationResult | "retry" | "caller_refused"> {
  const key = ctx.idempotencyKey;
  let prepared;
  try {
    prepared = await prepareSend(deps, ctx, input, opts);
  } catch (e) {
    // Any answer but an accepted send comes only after the caller's account and workspace were read afresh.
    ctx = withContext(ctx, { principal: await verifyCaller(deps, ctx.principal) });
    if (key !== null && isDomainError(e)) {
      const stored = await deps.stores.idempotency.find({ workspaceId: ctx.principal.workspace.id, accountId: callerKey(ctx.principal), key });
      if (stored) return replayOrConflict(stored, ctx);
    }
    await auditSendRefusal(deps, ctx, e);
    throw e;
  }
  const { message, recipient } = prepared;
  const body: SendMessageResponse = {
    message_id: message.id,
    state: "pending",
    accepted_at: message.acceptedAt.toISOString(),
    expires_at: message.expiresAt.toISOString(),
    recipient: { ai_account_id: recipient.id, friendly_name: recipient.friendlyName },
    thread_id: threadIdOf(message),
  };
  const bodyText = JSON.stringify(body);
  const idempotency: IdempotencyRecord | null =
    key === null
      ? null
      : { workspaceId: message.workspaceId, accountId: message.senderId, key, fingerprint: ctx.fingerprint, requestId: ctx.requestId, status: 201, bodyText, createdAt: message.acceptedAt, expiresAt: new Date(message.acceptedAt.getTime() + IDEMPOTENCY_RETENTION_MS) };
  const audit = messageAuditEntry(deps, ctx, {
    messageId: message.id,
    activity: "message.sent",
    occurredAt: message.acceptedAt,
    details: { recipient_id: recipient.id, template: message.template, priority: message.priority, correlation_id: message.correlationId, deliver_at: message.visibleAt.toISOString(), expires_at: body.expires_at, ...(message.inReplyTo === null ? {} : { in_reply_to: message.inReplyTo, thread_id: body.thread_id }) },
  });
  const result = await deps.stores.messages.acceptSend({ message, audit, heldAuditId: deps.ids.next(), idempotency, caller: callerGuardOf(ctx.principal) });
  if (result.kind === "caller_refused") return "caller_refused";
  if (result.kind !== "accepted") ctx = withContext(ctx, { principal: await verifyCaller(deps, ctx.principal) });
  switch (result.kind) {
    case "accepted":
      // acceptSend ran on the pool's stores: the send has committed.
      deps.meter?.count("sent", 1, message.workspaceId);
      if (result.heldBy !== undefined) {
        // Held for approval: the approvers hear of it (at most one mail a minute), without delaying the answer.
        void mailApprovers(deps, { workspaceName: ctx.principal.workspace.name, message: result.message, policyName: result.heldBy.policyName });
        return { status: 201, body: heldSendBody(JSON.parse(bodyText) as Record<string, unknown>, result.heldBy) };
      }
      return { status: 201, body: JSON.parse(bodyText) as unknown };
    case "idempotency_exists":
      return replayOrConflict(result.record, ctx);
    case "recipient_gone":
      if (prepared.recipientCached && !opts.freshRecipient) return "retry";
      throw new DomainError("SVC_RECIPIENT_RESOLUTION_FAILED", "The recipient could not be resolved.", { field: "envelope.recipient.friendly_name" });
    case "policy_unacknowledged":
      // The write found a required policy unacknowledged: the read names them (and the refusal
      // is audited); should it find none, they were acknowledged meanwhile and the send is tried again.
      try {
        await checkPolicyGate(deps, ctx);
      } catch (e) {
        await auditSendRefusal(deps, ctx, e);
        throw e;
      }
      return "retry";
  }
}
