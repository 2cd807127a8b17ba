import type { Priority } from "../messaging/message.ts";

/** Event type of a delivery written by a send, one per live webhook of the recipient whose filter matches. */
export const MESSAGE_SENT_EVENT = "message.sent";
/** Event type of the signed probe a destination must answer with 2xx when a webhook is created or its URL changes. */
export const VERIFICATION_EVENT = "webhook.verification";
/** Activity of the alert raised (audit row and log line) when a delivery is exhausted. */
export const DELIVERY_EXHAUSTED_ACTIVITY = "webhook.delivery_exhausted";

/** How long delivered and dead deliveries are kept before the background purge deletes them (7 days). */
export const DELIVERY_RETENTION_MS = 7 * 24 * 60 * 60 * 1000;

/** Most attempts a delivery gets: the first plus five retries (spec §Events 3). */
export const MAX_DELIVERY_ATTEMPTS = 6;

/**
 * Which messages of the recipient a webhook pushes: a template allow-list (null: any template)
 * and a lowest priority (null: any priority). Evaluated by the send itself, so a message the
 * filter rejects writes no outbox row at all.
 */
export interface WebhookFilter {
  templates: string[] | null;
  minPriority: Priority | null;
}

/**
 * One HMAC signing key of a webhook. The key itself is never stored: `seal` is random and the
 * key is HMAC-SHA-256(server pepper, seal) (see `signingSecretFromSeal`), so the database alone
 * cannot sign. The current key has `expiresAt` null; a rotated-out key keeps signing until its
 * `expiresAt` (the overlap).
 */
export interface SigningKey {
  id: string;
  seal: string;
  createdAt: Date;
  expiresAt: Date | null;
}

/** A webhook as stored: pushes the deliveries of one recipient AI account to one URL. */
export interface WebhookRecord {
  id: string;
  workspaceId: string;
  /** The AI account whose received messages are pushed. */
  aiAccountId: string;
  url: string;
  name: string;
  filter: WebhookFilter;
  /** Attempts per delivery, 1..MAX_DELIVERY_ATTEMPTS. */
  maxAttempts: number;
  /** Current key first, then keys in their overlap, newest first. */
  signingKeys: SigningKey[];
  createdAt: Date;
  updatedAt: Date;
  deletedAt: Date | null;
}

/** Delivery states (spec §States/Webhook delivery). */
export const DELIVERY_STATES = ["pending", "retrying", "delivered", "dead"] as const;
/** A delivery state. */
export type DeliveryState = (typeof DELIVERY_STATES)[number];

/** One outbox row: an event to deliver to one webhook. */
export interface DeliveryRecord {
  id: string;
  workspaceId: string;
  webhookId: string;
  messageId: string | null;
  eventType: string;
  /** The event's `data` object. */
  payload: unknown;
  state: DeliveryState;
  /** Attempts finished so far (an attempt cut short by a dispatcher crash is not counted). */
  attempts: number;
  /** When the next attempt is due (pending/retrying), or the end of a dispatcher's claim. */
  nextAttemptAt: Date;
  createdAt: Date;
  lastAttemptAt: Date | null;
  /** HTTP status of the last attempt, when a response came back. */
  lastStatus: number | null;
  /** Why the last attempt failed (see WebhookFailureReason, or `status_<code>`). */
  lastError: string | null;
  deliveredAt: Date | null;
  deadAt: Date | null;
  /** The traceparent of the message the delivery is about (sent as the `traceparent` header), or null. */
  traceparent: string | null;
}

/** What the management reads show of a webhook's outbox. */
export interface WebhookStats {
  counts: Record<DeliveryState, number>;
  lastSuccessAt: Date | null;
  lastFailureAt: Date | null;
  lastFailureReason: string | null;
  /** The most recent dead deliveries, newest first. */
  recentDead: DeliveryRecord[];
}

/** A delivery claimed by a dispatcher, with what it needs to sign and send it. */
export interface ClaimedDelivery {
  delivery: DeliveryRecord;
  url: string;
  maxAttempts: number;
  signingKeys: SigningKey[];
}
