/** How long an idempotency key is retained (spec §Limits). */
export const IDEMPOTENCY_RETENTION_MS = 24 * 60 * 60 * 1000;

/**
 * A stored idempotency key. Keys are scoped by workspace and calling AI account. A record with
 * `status === null` is still in progress (its transaction has not committed; other callers
 * never observe that state from the PostgreSQL adapter, because the claim blocks on it).
 */
export interface IdempotencyRecord {
  workspaceId: string;
  accountId: string;
  key: string;
  /** SHA-256 over method, path and the canonical request body. */
  fingerprint: string;
  /** The request that first used the key. */
  requestId: string;
  status: number | null;
  /** The original response body, exactly as first sent. */
  bodyText: string | null;
  createdAt: Date;
  expiresAt: Date;
}
