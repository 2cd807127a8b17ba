import type { NewAuditEntry } from "../audit/audit-entry.ts";
import type { Clock, MinuteStats, StatsStore } from "../ports.ts";
import { MINUTE_MS } from "../time/duration.ts";
import type { InMemoryMessagingTables } from "./in-memory-messaging-tables.ts";
import type { InMemoryTable, InMemoryTransaction } from "./in-memory-transaction.ts";

const COUNTED: Record<string, "sent" | "acknowledged" | "deadLettered"> = { "message.sent": "sent", "message.acknowledged": "acknowledged", "message.dead_lettered": "deadLettered" };

type Row = MinuteStats & { workspaceId: string; aiAccountId?: string };

/** StatsStore in memory: the minute series counted from the in-memory audit rows and messages, as PgStatsStore counts from the tables. */
export class InMemoryStatsStore implements StatsStore {
  constructor(
    private readonly tables: InMemoryMessagingTables,
    private readonly clock: Clock,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  async recordMinutes(): Promise<number> {
    return this.recordSeries(this.tables.minuteStats, false) + this.recordSeries(this.tables.recipientMinuteStats, true);
  }

  /** As PgStatsStore: a send counts for its named recipient, an ack for its actor, a dead letter for its message's recipient. */
  private recipientOf(a: NewAuditEntry): string | null {
    if (a.activity === "message.sent") return typeof a.details.recipient_id === "string" ? a.details.recipient_id : null;
    if (a.activity === "message.acknowledged") return a.actorAccountId;
    return a.messageId === null ? null : (this.tables.messages.get(a.messageId)?.recipientId ?? null);
  }

  /** One series' pass: per workspace, or per workspace and recipient. */
  private recordSeries(table: InMemoryTable<Row>, perRecipient: boolean): number {
    const now = this.clock.now().getTime();
    const to = Math.floor(now / MINUTE_MS) * MINUTE_MS;
    const from = to - 2 * MINUTE_MS;
    const last = to - MINUTE_MS;
    const rows = new Map<string, Row>();
    const keyOf = (workspaceId: string, aiAccountId: string | null, minute: number) => [workspaceId, ...(aiAccountId === null ? [] : [aiAccountId]), new Date(minute).toISOString()].join("/");
    const row = (workspaceId: string, aiAccountId: string | null, minute: number) => {
      const key = keyOf(workspaceId, aiAccountId, minute);
      let r = rows.get(key);
      if (r === undefined) {
        const stored = table.get(key);
        // Events are recounted; a stored minute keeps its depth unless this pass reads it afresh.
        r = { workspaceId, ...(aiAccountId === null ? {} : { aiAccountId }), minute: new Date(minute), sent: 0, acknowledged: 0, deadLettered: 0, pending: stored?.pending ?? 0, oldestPendingAgeSeconds: stored?.oldestPendingAgeSeconds ?? 0 };
        rows.set(key, r);
      }
      return r;
    };
    for (const a of this.tables.audit.values()) {
      const field = COUNTED[a.activity];
      const at = a.occurredAt.getTime();
      if (field === undefined || at < from || at >= to) continue;
      const recipient = perRecipient ? this.recipientOf(a) : null;
      if (perRecipient && recipient === null) continue;
      row(a.workspaceId, recipient, Math.floor(at / MINUTE_MS) * MINUTE_MS)[field]++;
    }
    const waiting = new Map<string, { workspaceId: string; recipient: string | null; pending: number; oldest: number | null }>();
    for (const m of this.tables.messages.values()) {
      if (m.state !== "pending" || m.expiresAt.getTime() <= now) continue;
      const recipient = perRecipient ? m.recipientId : null;
      const key = keyOf(m.workspaceId, recipient, last);
      const w = waiting.get(key) ?? { workspaceId: m.workspaceId, recipient, pending: 0, oldest: null };
      w.pending++;
      w.oldest = w.oldest === null ? m.acceptedAt.getTime() : Math.min(w.oldest, m.acceptedAt.getTime());
      waiting.set(key, w);
    }
    for (const w of waiting.values()) {
      const r = row(w.workspaceId, w.recipient, last);
      r.pending = w.pending;
      r.oldestPendingAgeSeconds = w.oldest === null ? 0 : Math.floor((now - w.oldest) / 1000);
    }
    // A minute read afresh with nothing pending any more says so.
    for (const [key, r] of rows) if (r.minute.getTime() === last && !waiting.has(key)) Object.assign(r, { pending: 0, oldestPendingAgeSeconds: 0 });
    for (const [key, r] of rows) table.set(this.tx, key, r);
    return rows.size;
  }

  async listMinutes(p: { workspaceId: string; from: Date; aiAccountId?: string | null }): Promise<MinuteStats[]> {
    const table = (p.aiAccountId ?? null) === null ? (this.tables.minuteStats as InMemoryTable<Row>) : (this.tables.recipientMinuteStats as InMemoryTable<Row>);
    return table
      .values()
      .filter((r) => r.workspaceId === p.workspaceId && (p.aiAccountId ?? null) === (r.aiAccountId ?? null) && r.minute.getTime() >= p.from.getTime())
      .sort((a, b) => a.minute.getTime() - b.minute.getTime())
      .map(({ workspaceId: _, aiAccountId: __, ...m }) => m);
  }

  async purgeBefore(p: { before: Date }): Promise<number> {
    let n = 0;
    for (const table of [this.tables.minuteStats as InMemoryTable<Row>, this.tables.recipientMinuteStats as InMemoryTable<Row>]) {
      for (const [key, r] of table.entries()) {
        if (r.minute.getTime() >= p.before.getTime()) continue;
        table.delete(this.tx, key);
        n++;
      }
    }
    return n;
  }
}
