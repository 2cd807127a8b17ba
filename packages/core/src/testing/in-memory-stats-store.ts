import type { Clock, MinuteStats, StatsStore } from "../ports.ts";
import { MINUTE_MS } from "../time/duration.ts";
import type { InMemoryMessagingTables } from "./in-memory-messaging-tables.ts";
import type { InMemoryTransaction } from "./in-memory-transaction.ts";

const COUNTED: Record<string, "sent" | "acknowledged" | "deadLettered"> = { "message.sent": "sent", "message.acknowledged": "acknowledged", "message.dead_lettered": "deadLettered" };

/** StatsStore in memory: the minute series counted from the in-memory audit rows and messages, as PgStatsStore counts from the tables. */
export class InMemoryStatsStore implements StatsStore {
  constructor(
    private readonly tables: InMemoryMessagingTables,
    private readonly clock: Clock,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  async recordMinutes(): Promise<number> {
    const now = this.clock.now().getTime();
    const to = Math.floor(now / MINUTE_MS) * MINUTE_MS;
    const from = to - 2 * MINUTE_MS;
    const last = to - MINUTE_MS;
    const rows = new Map<string, MinuteStats & { workspaceId: string }>();
    const row = (workspaceId: string, minute: number) => {
      const key = `${workspaceId}/${new Date(minute).toISOString()}`;
      let r = rows.get(key);
      if (r === undefined) {
        const stored = this.tables.minuteStats.get(key);
        // Events are recounted; a stored minute keeps its depth unless this pass reads it afresh.
        r = { workspaceId, minute: new Date(minute), sent: 0, acknowledged: 0, deadLettered: 0, pending: stored?.pending ?? 0, oldestPendingAgeSeconds: stored?.oldestPendingAgeSeconds ?? 0 };
        rows.set(key, r);
      }
      return r;
    };
    for (const a of this.tables.audit.values()) {
      const field = COUNTED[a.activity];
      const at = a.occurredAt.getTime();
      if (field === undefined || at < from || at >= to) continue;
      row(a.workspaceId, Math.floor(at / MINUTE_MS) * MINUTE_MS)[field]++;
    }
    const waiting = new Map<string, { pending: number; oldest: number | null }>();
    for (const m of this.tables.messages.values()) {
      if (m.state !== "pending" || m.expiresAt.getTime() <= now) continue;
      const w = waiting.get(m.workspaceId) ?? { pending: 0, oldest: null };
      w.pending++;
      w.oldest = w.oldest === null ? m.acceptedAt.getTime() : Math.min(w.oldest, m.acceptedAt.getTime());
      waiting.set(m.workspaceId, w);
    }
    for (const [workspaceId, w] of waiting) {
      const r = row(workspaceId, last);
      r.pending = w.pending;
      r.oldestPendingAgeSeconds = w.oldest === null ? 0 : Math.floor((now - w.oldest) / 1000);
    }
    // A minute read afresh with nothing pending any more says so.
    for (const r of rows.values()) if (r.minute.getTime() === last && !waiting.has(r.workspaceId)) Object.assign(r, { pending: 0, oldestPendingAgeSeconds: 0 });
    for (const [key, r] of rows) this.tables.minuteStats.set(this.tx, key, r);
    return rows.size;
  }

  async listMinutes(p: { workspaceId: string; from: Date }): Promise<MinuteStats[]> {
    return this.tables.minuteStats
      .values()
      .filter((r) => r.workspaceId === p.workspaceId && r.minute.getTime() >= p.from.getTime())
      .sort((a, b) => a.minute.getTime() - b.minute.getTime())
      .map(({ workspaceId: _, ...m }) => m);
  }

  async purgeBefore(p: { before: Date }): Promise<number> {
    let n = 0;
    for (const [key, r] of this.tables.minuteStats.entries()) {
      if (r.minute.getTime() >= p.before.getTime()) continue;
      this.tables.minuteStats.delete(this.tx, key);
      n++;
    }
    return n;
  }
}
