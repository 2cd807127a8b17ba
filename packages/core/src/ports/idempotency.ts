import type { IdempotencyRecord } from "../idempotency/idempotency-record.ts";

// The idempotency seam: stored responses of Idempotency-Key requests. Every port's general
// rules: src/ports.ts.

/** Idempotency keys, scoped by workspace and calling AI account. */
export interface IdempotencyStore {
  /** The unexpired record for the key, or null. */
  find(p: { workspaceId: string; accountId: string; key: string }): Promise<IdempotencyRecord | null>;
  /**
   * Inserts an in-progress record unless an unexpired one exists (an expired one is replaced).
   * Inside a transaction, a concurrent claim of the same key waits until this transaction ends
   * and then sees the committed record (`exists`), or claims it if this one rolled back.
   */
  claim(p: { record: IdempotencyRecord }): Promise<{ kind: "claimed" } | { kind: "exists"; record: IdempotencyRecord }>;
  /** Stores the response of a claimed key. */
  complete(p: { workspaceId: string; accountId: string; key: string; status: number; bodyText: string }): Promise<void>;
  /** Deletes records that expired before `now`; returns how many. */
  purgeExpired(p: { now: Date; limit: number }): Promise<number>;
}
