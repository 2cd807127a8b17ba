// What a fault run records (the client-side history) and what it reads from the database at the
// end (the final state). The checker is a pure function of these two.
import type { AuditEntry } from "@agentq/core";

/**
 * One producer send, after all its attempts with one Idempotency-Key: `ok` when a 201 came back
 * (its message id), `failed` when a definitive refusal came back (4xx other than 429: nothing may
 * have been enqueued), `indeterminate` when every attempt ended in a network error, 429 or 5xx
 * (the send may or may not have committed).
 */
export interface SendRecord {
  producer: string;
  /** The Idempotency-Key, also sent as the envelope's correlation_id so the database row names it. */
  key: string;
  outcome: "ok" | "failed" | "indeterminate";
  /** The message id of the 201 (outcome ok). */
  messageId: string | null;
  /** Every distinct message id any attempt's 201 returned (more than one is a double enqueue). */
  messageIds: string[];
  attempts: number;
  /** The SVC_ code of a definitive refusal, or the last error of an indeterminate send. */
  code: string | null;
  startedAt: number;
  endedAt: number;
}

/** One message a consumer received from get-pending (times from the server: the database clock). */
export interface DeliveryRecord {
  consumer: string;
  messageId: string;
  leaseId: string;
  /** lease_expires_at of the response (database clock), epoch ms. */
  leaseExpiresAt: number;
  deliveryCount: number;
  correlationId: string | null;
  /** Local wall-clock time the response arrived, epoch ms (informational only). */
  receivedAt: number;
}

/** One ack or nack a consumer made with one lease, after its bounded retries. */
export interface SettleRecord {
  consumer: string;
  kind: "ack" | "nack";
  messageId: string;
  leaseId: string;
  /** ok: a 200 came back; refused: an SVC_ refusal came back; indeterminate: network errors or 5xx only. */
  outcome: "ok" | "refused" | "indeterminate";
  code: string | null;
  /** For a nack: the redeliver_after asked, in ms. */
  redeliverAfterMs: number | null;
  /** The acknowledged_at (ack) or available_at (nack) of a 200, epoch ms (database clock). */
  serverAt: number | null;
  /** Whether the consumer deliberately slept past the lease before this call. */
  afterSleepingPastLease: boolean;
  sentAt: number;
  answeredAt: number;
}

/** One hand-off a consumer made with one lease (DESIGN §2c), after its bounded retries. */
export interface HandOffRecord {
  consumer: string;
  messageId: string;
  leaseId: string;
  /** Friendly names of the account handing the message on and of the one it was handed to. */
  from: string;
  to: string;
  /** ok: a 200 came back; refused: an SVC_ refusal came back; indeterminate: network errors or 5xx only (or a refusal after them). */
  outcome: "ok" | "refused" | "indeterminate";
  code: string | null;
  /** handed_off_at of a 200, epoch ms (database clock): when the lease ended. */
  serverAt: number | null;
  sentAt: number;
  answeredAt: number;
}

/** The kinds of fault a run injects. */
export type FaultKind = "server_kill" | "server_pause" | "pg_restart_fast" | "pg_restart_immediate" | "pg_terminate_backends" | "proxy_latency" | "proxy_blackhole" | "server_crash";

/** One injected fault (or an unplanned server exit, `server_crash`). */
export interface FaultRecord {
  kind: FaultKind;
  target: string;
  at: number;
  durationMs: number;
}

/** Everything the run recorded on the client side. */
export interface RunHistory {
  sends: SendRecord[];
  deliveries: DeliveryRecord[];
  settles: SettleRecord[];
  handOffs: HandOffRecord[];
  faults: FaultRecord[];
  /** get-pending calls by result: "ok", "empty", or the error code / "network". */
  polls: Record<string, number>;
}

/** A message row as it stands at the end. */
export interface FinalMessage {
  id: string;
  correlationId: string | null;
  state: string;
  deliveryCount: number;
  /** epoch ms (database clock) or null. */
  acknowledgedAt: number | null;
  /** The account it is addressed to now, and the one its send addressed (the message.sent row's details.recipient_id). */
  recipientId: string;
  sentToId: string | null;
}

/** A `message.claimed` audit row: one lease, as the database granted it. */
export interface ClaimRow {
  messageId: string;
  leaseId: string;
  /** occurred_at (the claim's now(), database clock), epoch ms. */
  claimedAt: number;
  /** details.lease_expires_at, epoch ms. */
  leaseExpiresAt: number;
  accountId: string | null;
  /** details.delivery_count: the message's deliveries counting this claim. */
  deliveryCount: number;
}

/** A `message.handed_off` audit row: the lease it ended and both accounts. */
export interface HandOffAuditRow {
  messageId: string;
  leaseId: string | null;
  fromAccountId: string | null;
  toAccountId: string | null;
}

/** A `message.acknowledged` or `message.nacked` audit row (its lease id from details). */
export interface SettleAuditRow {
  messageId: string;
  leaseId: string | null;
}

/** The database at the end of the run. */
export interface FinalState {
  messages: FinalMessage[];
  claims: ClaimRow[];
  /** message ids of every `message.sent` audit row (one entry per row). */
  sentAudit: string[];
  ackAudit: SettleAuditRow[];
  /** `message.nacked` rows: a nack the database accepted, whether or not its answer reached the consumer. */
  nackAudit: SettleAuditRow[];
  /** `message.handed_off` rows: hand-offs the database accepted, whether or not their answer reached the consumer. */
  handOffAudit: HandOffAuditRow[];
  /** The workspace's audit rows in seq order (sealed ones), for verifyAuditChain. */
  chain: AuditEntry[];
  /** Audit rows still unsealed when the state was read. */
  unsealed: number;
}
