import type { CoreDeps } from "../deps.ts";
import { DomainError, malformed } from "../errors.ts";
import type { OperationContext } from "../operation.ts";
import { leaseRefusal } from "./lease-refusal.ts";
import { messageAuditEntry } from "./message-audit.ts";
import { parseLeaseId, parseMessageId, parseOptionalText } from "./message-fields.ts";
import type { AccountRef } from "./message-views.ts";
import { MESSAGING_LIMITS } from "./messaging-limits.ts";
import { resolveRecipient } from "./recipient-cache.ts";
import { credentialCaller } from "../access/principal.ts";

/** The body (plus path id) of a hand-off (DESIGN §2c). */
export interface HandOffMessageInput {
  message_id: string;
  lease_id: string;
  to: { friendly_name: string };
  note?: string | null;
}

/** The 200 body of a hand-off. */
export interface HandOffMessageResponse {
  message_id: string;
  state: "pending";
  recipient: AccountRef;
  delivery_count: number;
  handed_off_at: string;
}

function recipientUnresolved(): DomainError {
  return new DomainError("SVC_RECIPIENT_RESOLUTION_FAILED", "The recipient could not be resolved.", { field: "to.friendly_name" });
}

/**
 * POST /v1/messages/{message_id}/hand-off: hands a message the caller holds under a live lease
 * to another AI account of the workspace, addressed by friendly name. In one guarded write
 * decided by the store clock (as ack): the lease ends, the message is addressed to the new
 * recipient and claimable by it alone at once, its delivery count kept; the audit row
 * `message.handed_off` names both accounts (so the timeline shows the chain). Afterwards the
 * message is the new recipient's: the former holder sees it only if it sent it.
 * @throws DomainError SVC_MALFORMED_REQUEST (lease_id, to.friendly_name, note),
 *   SVC_RECIPIENT_RESOLUTION_FAILED (no addressable account of that name, or the caller itself),
 *   and the refusals of `leaseRefusal` (SVC_RESOURCE_NOT_FOUND, SVC_LEGALLY_WITHHELD, SVC_EXPIRED,
 *   SVC_DEAD_LETTERED, SVC_LEASE_NOT_HELD, SVC_LEASE_EXPIRED).
 */
export async function handOffMessage(deps: CoreDeps, ctx: OperationContext, input: HandOffMessageInput): Promise<HandOffMessageResponse> {
  const messageId = parseMessageId(input.message_id);
  const leaseId = parseLeaseId(input.lease_id);
  const friendlyName: unknown = input.to?.friendly_name;
  if (typeof friendlyName !== "string" || friendlyName.length === 0 || friendlyName.length > 200) throw malformed("to.friendly_name must be a friendly name.", { field: "to.friendly_name" });
  const note = parseOptionalText(input.note, "note", MESSAGING_LIMITS.handOffNoteMaxLength);
  const caller = credentialCaller(ctx.principal).account;
  const workspaceId = ctx.principal.workspace.id;

  for (let attempt = 0; ; attempt++) {
    const { account: to, cached } = await resolveRecipient(deps, { workspaceId, friendlyName, fresh: attempt > 0 });
    if (to === null || to.id === caller.id) throw recipientUnresolved();
    const audit = messageAuditEntry(deps, ctx, {
      messageId,
      activity: "message.handed_off",
      details: {
        lease_id: leaseId,
        from: { ai_account_id: caller.id, friendly_name: caller.friendlyName },
        to: { ai_account_id: to.id, friendly_name: to.friendlyName },
        ...(note === null ? {} : { note }),
      },
    });
    const r = await deps.stores.messages.handOffIfHeld({ workspaceId, messageId, recipientId: caller.id, leaseId, to: { accountId: to.id, friendlyName: to.friendlyName }, audit });
    switch (r.kind) {
      case "handed_off":
        // The settle is the caller's (the recipient that handed it off).
        ctx.onMessageSettled?.({ messageId, recipientName: caller.friendlyName, traceparent: r.message.traceparent });
        return {
          message_id: messageId,
          state: "pending",
          recipient: { ai_account_id: r.message.recipientId, friendly_name: r.message.recipientName },
          delivery_count: r.message.deliveryCount,
          handed_off_at: r.message.visibleAt.toISOString(),
        };
      case "recipient_gone":
        // A cached resolution gone stale (renamed or revoked since): resolve afresh once.
        if (cached && attempt === 0) continue;
        throw recipientUnresolved();
      case "refused":
        throw leaseRefusal({ op: { kind: "ack" }, leaseId, snapshot: r.snapshot, now: r.now });
    }
  }
}
