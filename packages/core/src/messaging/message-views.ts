import { threadIdOf, type MessageRecord } from "./message.ts";

/** An AI account as shown inside an envelope. */
export interface AccountRef {
  ai_account_id: string;
  friendly_name: string;
}

/** The envelope of a stored message, as every read shows it (DESIGN §2 "Claimed envelope"). */
export interface EnvelopeView {
  message_id: string;
  sender: AccountRef;
  recipient: AccountRef;
  template: string;
  priority: MessageRecord["priority"];
  correlation_id: string | null;
  accepted_at: string;
  expires_at: string;
  delivery_count: number;
  /** The W3C traceparent stored with the message at its send, or null (DESIGN §2c Telemetry). */
  traceparent: string | null;
  /** The message this one answers (DESIGN §2c), or null. */
  in_reply_to: string | null;
  /** The id of the thread's first message (the message's own id when it starts the thread). */
  thread_id: string;
}

/** The wire envelope of `m` (ISO timestamps). Names are those at send time. */
export function envelopeView(m: MessageRecord): EnvelopeView {
  return {
    message_id: m.id,
    sender: { ai_account_id: m.senderId, friendly_name: m.senderName },
    recipient: { ai_account_id: m.recipientId, friendly_name: m.recipientName },
    template: m.template,
    priority: m.priority,
    correlation_id: m.correlationId,
    accepted_at: m.acceptedAt.toISOString(),
    expires_at: m.expiresAt.toISOString(),
    delivery_count: m.deliveryCount,
    traceparent: m.traceparent,
    in_reply_to: m.inReplyTo,
    thread_id: threadIdOf(m),
  };
}
