import type { ClaimedDelivery, DeliveryRecord, DeliveryState, SigningKey, WebhookFilter, WebhookRecord, WebhookStats } from "../webhooks/webhook.ts";

// The webhook seam: webhooks, their outbox of deliveries, and outbound HTTP for destination
// probes. Every port's general rules: src/ports.ts.

/** Webhooks and the management reads of their outbox. */
export interface WebhookStore {
  /** Inserts a webhook. */
  insert(p: { webhook: WebhookRecord }): Promise<void>;
  /** The webhook unless it is missing or deleted, else null. */
  findLive(p: { workspaceId: string; webhookId: string }): Promise<WebhookRecord | null>;
  /** Live webhooks of the workspace, oldest first (id ascending), optionally of one AI account; `after` is a webhook id. */
  list(p: { workspaceId: string; aiAccountId: string | null; after: string | null; limit: number }): Promise<WebhookRecord[]>;
  /** Sets the given fields (and updatedAt = now) of a live webhook; null when missing or deleted. */
  update(p: { workspaceId: string; webhookId: string; changes: { url?: string; name?: string; filter?: WebhookFilter; maxAttempts?: number }; now: Date }): Promise<WebhookRecord | null>;
  /**
   * Replaces the signing keys of a live webhook whose current key (first) is still
   * `expectedCurrentKeyId`: a compare-and-set, so of two concurrent rotations one wins and the
   * other gets `conflict` (in PostgreSQL the loser waits on the row lock, then sees the new key).
   */
  replaceSigningKeys(p: { workspaceId: string; webhookId: string; expectedCurrentKeyId: string; keys: SigningKey[]; now: Date }): Promise<{ kind: "rotated"; webhook: WebhookRecord } | { kind: "conflict" } | { kind: "not_found" }>;
  /**
   * Soft-deletes a live webhook (deletedAt = now) and deletes its pending and retrying outbox
   * rows in the same statement; returns the webhook and how many rows it purged, or null.
   * A send after this writes no outbox row for it.
   */
  softDelete(p: { workspaceId: string; webhookId: string; now: Date }): Promise<{ webhook: WebhookRecord; purged: number } | null>;
  /**
   * Outbox counts by state, the last success (deliveredAt), the last failed attempt of a delivery
   * that is retrying or dead (with its lastError), and up to `recentDeadLimit` dead deliveries
   * (newest first).
   */
  stats(p: { workspaceId: string; webhookId: string; recentDeadLimit: number }): Promise<WebhookStats>;
  /** The webhook's deliveries, newest first (id descending), optionally of one state; `after` is a delivery id. */
  listDeliveries(p: { workspaceId: string; webhookId: string; state: DeliveryState | null; after: string | null; limit: number }): Promise<DeliveryRecord[]>;
}

/**
 * The dispatcher's side of the webhook outbox. Rows are written by `MessageStore.acceptSend`
 * (one per live webhook of the recipient whose filter matches), in the send's transaction.
 */
export interface WebhookOutbox {
  /**
   * Claims up to `max` due deliveries (pending or retrying, nextAttemptAt <= now) of live
   * webhooks, any workspace, oldest due first, skipping rows other claimers lock (SKIP LOCKED).
   * Each claimed row gets nextAttemptAt = now + leaseMs and `claimToken`: no other claimer takes
   * it until that lease runs out, so a crashed dispatcher's rows are retried after the lease.
   */
  claimDue(p: { max: number; leaseMs: number; claimToken: string }): Promise<ClaimedDelivery[]>;
  /** Marks a claimed delivery delivered (attempts + 1, deliveredAt = now); false when the claim was lost (re-claimed, purged). */
  recordSuccess(p: { workspaceId: string; deliveryId: string; claimToken: string; status: number }): Promise<boolean>;
  /**
   * Records a failed attempt of a claimed delivery (attempts + 1, lastError, lastStatus): state
   * retrying with nextAttemptAt = now + retryInMs, or dead (deadAt = now) when `retryInMs` is
   * null. Returns the updated row, or null when the claim was lost.
   */
  recordFailure(p: { workspaceId: string; deliveryId: string; claimToken: string; status: number | null; error: string; retryInMs: number | null }): Promise<DeliveryRecord | null>;
  /** Deletes up to `limit` delivered or dead deliveries (any workspace) that finished before `finishedBefore`; returns how many. */
  purgeFinished(p: { finishedBefore: Date; limit: number }): Promise<number>;
}

/** Why an outbound webhook request got no HTTP response. */
export type WebhookFailureReason = "invalid_url" | "destination_not_public" | "dns_failure" | "connection_failed" | "timeout";

/**
 * Outbound HTTP for webhooks (the probe and deliveries). Adapters must refuse destinations that
 * resolve to non-public addresses at connect time (SSRF guard), never follow redirects, and give
 * up after `timeoutMs`.
 */
export interface WebhookTransport {
  /** POSTs `body` (application/json) with `headers`; never rejects. */
  post(p: { url: string; headers: Record<string, string>; body: string; timeoutMs: number }): Promise<{ kind: "response"; status: number } | { kind: "failed"; reason: WebhookFailureReason; detail?: string }>;
}
