/** Message priorities, lowest first. The dequeue order is priority (highest first), then accepted time. */
export const PRIORITIES = ["low", "normal", "high", "urgent"] as const;
/** A message priority. */
export type Priority = (typeof PRIORITIES)[number];
/** Numeric rank of each priority, stored so the claim index can sort by it (higher first). */
export const PRIORITY_RANK: Readonly<Record<Priority, number>> = { low: 0, normal: 1, high: 2, urgent: 3 };

/**
 * Message states as stored and as shown (DESIGN §2), plus `withheld` (DESIGN §2b): a message
 * withheld after a legal notice, out of the claim path, whose reads answer 451
 * SVC_LEGALLY_WITHHELD until a restoration returns it to the state it had; and (DESIGN §2c)
 * `held_for_approval`, a send an approval policy holds until a person approves it (then
 * `pending`) or rejects it (the terminal `rejected`), never claimed meanwhile.
 */
export const MESSAGE_STATES = ["pending", "held", "acknowledged", "expired", "dead_lettered", "withheld", "held_for_approval", "rejected"] as const;
/** A message state. */
export type MessageState = (typeof MESSAGE_STATES)[number];

/**
 * A message as stored. `state` is the stored state; the effective state also depends on the
 * clock (a held message whose lease ran out is claimable again, a message past `expiresAt` is
 * expired): see `effectiveState`.
 */
export interface MessageRecord {
  id: string;
  workspaceId: string;
  senderId: string;
  senderName: string;
  recipientId: string;
  recipientName: string;
  template: string;
  priority: Priority;
  correlationId: string | null;
  payload: unknown;
  state: MessageState;
  acceptedAt: Date;
  expiresAt: Date;
  /** pending: when the message becomes claimable; held: when the current lease runs out. */
  visibleAt: Date;
  /** Claims so far (each claim counts one delivery). */
  deliveryCount: number;
  /** The current (or, once acknowledged, the acknowledging) lease. */
  leaseId: string | null;
  leaseClaimedAt: Date | null;
  leaseExtensions: number;
  lastExtendedAt: Date | null;
  lastNackedAt: Date | null;
  acknowledgedAt: Date | null;
  outcomeSummary: string | null;
  deadLetteredAt: Date | null;
  /**
   * The W3C traceparent stored with the message at its send (the sender's `send` span, or the
   * caller's own traceparent), handed on in every claimed envelope and webhook delivery, across
   * nack, lease expiry and dead-letter release (DESIGN §2c Telemetry); null when none.
   */
  traceparent: string | null;
  /** The message this one answers (a send's `reply_to`, DESIGN §2c), or null. */
  inReplyTo: string | null;
  /** The id of its thread's first message; null when it starts its thread (its own id is the thread's). */
  threadId: string | null;
  /** The approval policy that held the send (DESIGN §2c), or null when none did. */
  approvalPolicyId: string | null;
}

/**
 * A message to be stored by a send: the record's fields that a send sets (`visibleAt`: when it
 * first becomes claimable, accepted time plus deliver_after); the store sets the rest.
 */
export type NewMessage = Pick<
  MessageRecord,
  "id" | "workspaceId" | "senderId" | "senderName" | "recipientId" | "recipientName" | "template" | "priority" | "correlationId" | "payload" | "acceptedAt" | "visibleAt" | "expiresAt" | "traceparent" | "inReplyTo" | "threadId"
>;

/** The id of `m`'s thread: its first message's id (its own when it starts the thread). */
export function threadIdOf(m: Pick<MessageRecord, "id" | "threadId">): string {
  return m.threadId ?? m.id;
}

/** The states whose messages still wait for something (a claim, an ack, an approval): expiry ends them. */
export const LIVE_STATES: readonly MessageState[] = ["pending", "held", "held_for_approval"];

/** The effective state of `m` at `now`: expiry wins over pending, held and held_for_approval. */
export function effectiveState(m: Pick<MessageRecord, "state" | "expiresAt">, now: Date): MessageState {
  if (LIVE_STATES.includes(m.state) && m.expiresAt.getTime() <= now.getTime()) return "expired";
  return m.state;
}

/**
 * The state a read shows for `m` at `now` (GET /v1/messages, the dashboard, the export): the
 * effective state, except that a held message whose lease ran out is pending again (the spec's
 * "lease runs out: reclaimed and redelivered"), since any claim may take it. The lease checks
 * keep using `effectiveState`, which tells a lapsed lease (SVC_LEASE_EXPIRED) from another's.
 */
export function shownState(m: Pick<MessageRecord, "state" | "expiresAt" | "visibleAt">, now: Date): MessageState {
  const state = effectiveState(m, now);
  return state === "held" && m.visibleAt.getTime() <= now.getTime() ? "pending" : state;
}
