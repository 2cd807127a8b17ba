import type { AuditEntry, NewAuditEntry } from "../audit/audit-entry.ts";
import type { AuditLog, AuditSealSession } from "../ports.ts";
import type { InMemoryMessagingTables } from "./in-memory-messaging-tables.ts";
import { InMemoryTransaction } from "./in-memory-transaction.ts";

/** In-memory AuditLog. The seal lock is a per-workspace flag; `withSealLock` rolls back its seals when `fn` throws. */
export class InMemoryAuditLog implements AuditLog {
  constructor(
    private readonly tables: InMemoryMessagingTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  async append(p: { entry: NewAuditEntry }): Promise<void> {
    appendAuditRow(this.tables, this.tx, p.entry);
  }

  async list(p: { workspaceId: string; activity: string | null; messageId: string | null; includeOperatorSignificant: boolean; after: string | null; limit: number }): Promise<AuditEntry[]> {
    const rows = this.tables.audit
      .values()
      .filter((r) => r.workspaceId === p.workspaceId && (p.activity === null || r.activity === p.activity) && (p.messageId === null || r.messageId === p.messageId) && (p.includeOperatorSignificant || !r.operatorSignificant))
      .sort((a, b) => compareDesc(this.positionOf(a), this.positionOf(b)));
    const after = p.after;
    return (after === null ? rows : rows.filter((r) => this.positionOf(r) < after)).slice(0, p.limit + 1);
  }

  positionOf(entry: AuditEntry): string {
    return `${entry.occurredAt.toISOString()}/${entry.id}`;
  }

  async timeline(p: { workspaceId: string; messageId: string }): Promise<AuditEntry[]> {
    return this.tables.audit
      .values()
      .filter((r) => r.workspaceId === p.workspaceId && r.messageId === p.messageId)
      .sort((a, b) => compareDesc(this.positionOf(b), this.positionOf(a)));
  }

  async readChain(p: { workspaceId: string; afterSeq: number; limit: number }): Promise<AuditEntry[]> {
    return this.tables.audit
      .values()
      .filter((r) => r.workspaceId === p.workspaceId && r.seq !== null && r.seq > p.afterSeq)
      .sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0))
      .slice(0, p.limit);
  }

  async workspacesWithUnsealed(p: { limit: number }): Promise<string[]> {
    const out = new Set<string>();
    for (const r of this.tables.audit.values()) {
      if (r.seq === null) out.add(r.workspaceId);
      if (out.size >= p.limit) break;
    }
    return [...out];
  }

  async withSealLock<T>(p: { workspaceId: string }, fn: (session: AuditSealSession) => Promise<T>): Promise<T | null> {
    if (this.tables.sealLocks.has(p.workspaceId)) return null;
    this.tables.sealLocks.add(p.workspaceId);
    const tx = this.tx ?? new InMemoryTransaction();
    const tables = this.tables;
    const session: AuditSealSession = {
      async head() {
        let head: { seq: number; hash: string } | null = null;
        for (const r of tables.audit.values()) {
          if (r.workspaceId === p.workspaceId && r.seq !== null && r.hash !== null && (head === null || r.seq > head.seq)) head = { seq: r.seq, hash: r.hash };
        }
        return head;
      },
      async unsealed(q) {
        return tables.audit
          .values()
          .filter((r) => r.workspaceId === p.workspaceId && r.seq === null)
          .sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .slice(0, q.limit);
      },
      async writeSeals(q) {
        for (const s of q.seals) {
          const r = tables.audit.get(s.id);
          if (r) tables.audit.set(tx, s.id, { ...r, seq: s.seq, prevHash: s.prevHash, hash: s.hash, sealedAt: q.sealedAt });
        }
      },
    };
    try {
      const out = await fn(session);
      if (tx !== this.tx) tx.commit();
      return out;
    } catch (e) {
      if (tx !== this.tx) tx.rollback();
      throw e;
    } finally {
      this.tables.sealLocks.delete(p.workspaceId);
    }
  }
}

/** Inserts an unsealed audit row (shared with InMemoryMessageStore, which writes rows as part of its writes). */
export function appendAuditRow(tables: InMemoryMessagingTables, tx: InMemoryTransaction | null, entry: NewAuditEntry): void {
  tables.audit.set(tx, entry.id, { ...entry, seq: null, prevHash: null, hash: null, sealedAt: null });
}

function compareDesc(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0;
}
