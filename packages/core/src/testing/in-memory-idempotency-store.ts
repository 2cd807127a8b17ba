import type { IdempotencyRecord } from "../idempotency/idempotency-record.ts";
import type { Clock, IdempotencyStore } from "../ports.ts";
import { idempotencyKeyOf, type InMemoryMessagingTables } from "./in-memory-messaging-tables.ts";
import type { InMemoryTransaction } from "./in-memory-transaction.ts";

/**
 * In-memory IdempotencyStore. Like PostgreSQL under READ COMMITTED, a key claimed by another
 * open transaction is invisible to `find`, and `claim` waits for that transaction to settle.
 */
export class InMemoryIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly tables: InMemoryMessagingTables,
    private readonly clock: Clock,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  async find(p: { workspaceId: string; accountId: string; key: string }): Promise<IdempotencyRecord | null> {
    const k = idempotencyKeyOf(p);
    const owner = this.tables.idempotencyOwners.get(k);
    if (owner && owner.open && owner !== this.tx) return null;
    const r = this.tables.idempotency.get(k);
    return r && r.expiresAt.getTime() > this.clock.now().getTime() ? r : null;
  }

  async claim(p: { record: IdempotencyRecord }): Promise<{ kind: "claimed" } | { kind: "exists"; record: IdempotencyRecord }> {
    const k = idempotencyKeyOf(p.record);
    for (;;) {
      const owner = this.tables.idempotencyOwners.get(k);
      if (owner && owner.open && owner !== this.tx) {
        await owner.settled;
        continue;
      }
      const existing = this.tables.idempotency.get(k);
      if (existing && existing.expiresAt.getTime() > this.clock.now().getTime()) return { kind: "exists", record: existing };
      this.tables.idempotency.set(this.tx, k, p.record);
      if (this.tx) {
        const tx = this.tx;
        this.tables.idempotencyOwners.set(k, tx);
        void tx.settled.then(() => {
          if (this.tables.idempotencyOwners.get(k) === tx) this.tables.idempotencyOwners.delete(k);
        });
      }
      return { kind: "claimed" };
    }
  }

  async complete(p: { workspaceId: string; accountId: string; key: string; status: number; bodyText: string }): Promise<void> {
    const k = idempotencyKeyOf(p);
    const r = this.tables.idempotency.get(k);
    if (!r) return;
    this.tables.idempotency.set(this.tx, k, { ...r, status: p.status, bodyText: p.bodyText });
  }

  async purgeExpired(p: { now: Date; limit: number }): Promise<number> {
    let n = 0;
    for (const r of this.tables.idempotency.values()) {
      if (n >= p.limit) break;
      if (r.expiresAt.getTime() < p.now.getTime()) {
        this.tables.idempotency.delete(this.tx, idempotencyKeyOf(r));
        n++;
      }
    }
    return n;
  }
}
