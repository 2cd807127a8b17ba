import type { AuditEntry, NewAuditEntry } from "../audit/audit-entry.ts";
import type { AuditLog, AuditSealSession, AuditTree, StoredCheckpoint } from "../ports.ts";
import { storedWithLeaf, type TreeNode } from "../audit/transparency-log/tree-coordinates.ts";
import { auditLinkKeyOf, type AuditChainLinkRow, type InMemoryMessagingTables } from "./in-memory-messaging-tables.ts";
import { InMemoryTransaction } from "./in-memory-transaction.ts";

/**
 * In-memory AuditLog: rows in `tables.audit` (never updated), chain links in `tables.auditChain`.
 * The seal lock is a per-workspace flag; `withSealLock` rolls back its links when `fn` throws.
 */
export class InMemoryAuditLog implements AuditLog {
  constructor(
    private readonly tables: InMemoryMessagingTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  async append(p: { entry: NewAuditEntry }): Promise<void> {
    appendAuditRow(this.tables, this.tx, p.entry);
  }

  async list(p: { workspaceId: string; activity: string | null; activityContains?: string | null; messageId: string | null; includeOperatorSignificant: boolean; after: string | null; limit: number }): Promise<AuditEntry[]> {
    const rows = this.rowsWithLinks(p.workspaceId)
      .filter((r) => (p.activity === null || r.activity === p.activity) && (p.activityContains == null || r.activity.includes(p.activityContains)) && (p.messageId === null || r.messageId === p.messageId) && (p.includeOperatorSignificant || !r.operatorSignificant))
      .sort((a, b) => compareDesc(this.positionOf(a), this.positionOf(b)));
    const after = p.after;
    return (after === null ? rows : rows.filter((r) => this.positionOf(r) < after)).slice(0, p.limit + 1);
  }

  positionOf(entry: AuditEntry): string {
    return `${entry.occurredAt.toISOString()}/${entry.id}`;
  }

  async timeline(p: { workspaceId: string; messageId: string }): Promise<AuditEntry[]> {
    return this.rowsWithLinks(p.workspaceId)
      .filter((r) => r.messageId === p.messageId)
      .sort((a, b) => compareDesc(this.positionOf(b), this.positionOf(a)));
  }

  async readChain(p: { workspaceId: string; afterSeq: number; limit: number }): Promise<AuditEntry[]> {
    const out: AuditEntry[] = [];
    for (const link of linksOf(this.tables, p.workspaceId).filter((l) => l.seq > p.afterSeq).sort((a, b) => a.seq - b.seq)) {
      if (out.length >= p.limit) break;
      const row = this.tables.audit.get(link.auditId);
      // A link whose row is gone is skipped, as the PostgreSQL adapter's join does: a gap in seq.
      if (row !== undefined && row.workspaceId === p.workspaceId) out.push(withLink(row, link));
    }
    return out;
  }

  async workspacesToSeal(p: { limit: number }): Promise<string[]> {
    const sealed = new Set(this.tables.auditChain.values().map((l) => l.auditId));
    const out = new Set<string>();
    for (const [workspaceId] of this.tables.auditTreeBacklog.entries()) if (out.size < p.limit) out.add(workspaceId);
    for (const r of this.tables.audit.values()) {
      if (out.size >= p.limit) break;
      if (!sealed.has(r.id)) out.add(r.workspaceId);
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
        for (const l of linksOf(tables, p.workspaceId)) if (head === null || l.seq > head.seq) head = { seq: l.seq, hash: l.hash };
        return head;
      },
      async unsealed(q) {
        const sealed = new Set(linksOf(tables, p.workspaceId).map((l) => l.auditId));
        return tables.audit
          .values()
          .filter((r) => r.workspaceId === p.workspaceId && !sealed.has(r.id))
          .sort((a, b) => a.occurredAt.getTime() - b.occurredAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          .slice(0, q.limit)
          .map(unsealedEntry);
      },
      async linkedRows(q) {
        const out: AuditEntry[] = [];
        for (const link of linksOf(tables, p.workspaceId).filter((l) => l.seq > q.afterSeq).sort((a, b) => a.seq - b.seq)) {
          if (out.length >= q.limit) break;
          const row = tables.audit.get(link.auditId);
          if (row !== undefined && row.workspaceId === p.workspaceId) out.push(withLink(row, link));
        }
        return out;
      },
      async treeSize() {
        return tables.auditTreeSizes.get(p.workspaceId) ?? 0;
      },
      async readTreeHashes(q) {
        return readTreeHashes(tables, p.workspaceId, q.nodes);
      },
      async appendTreeHashes(q) {
        const size = tables.auditTreeSizes.get(p.workspaceId) ?? 0;
        if (q.firstLeaf !== size) throw new Error(`audit tree leaf ${q.firstLeaf} appended at size ${size}`);
        for (const [i, hashes] of q.hashes.entries()) tables.auditTreeHashes.set(tx, auditLinkKeyOf(p.workspaceId, q.firstLeaf + i), [...hashes]);
        tables.auditTreeSizes.set(tx, p.workspaceId, size + q.hashes.length);
      },
      async publishCheckpoint(q) {
        tables.auditCheckpoints.set(tx, p.workspaceId, q.checkpoint);
      },
      async treeCaughtUp() {
        tables.auditTreeBacklog.delete(tx, p.workspaceId);
      },
      async appendLinks(q) {
        for (const l of q.links) {
          const key = auditLinkKeyOf(p.workspaceId, l.seq);
          // Like the primary key of the PostgreSQL chain table: a seq is linked once.
          if (tables.auditChain.has(key)) throw new Error(`audit chain seq ${l.seq} is already linked`);
          tables.auditChain.set(tx, key, { ...l, workspaceId: p.workspaceId, sealedAt: q.sealedAt });
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

  /** The workspace's rows, each with its link's fields (null when unsealed). */
  private rowsWithLinks(workspaceId: string): AuditEntry[] {
    const links = new Map(linksOf(this.tables, workspaceId).map((l) => [l.auditId, l]));
    return this.tables.audit
      .values()
      .filter((r) => r.workspaceId === workspaceId)
      .map((r) => {
        const link = links.get(r.id);
        return link === undefined ? unsealedEntry(r) : withLink(r, link);
      });
  }
}

/**
 * In-memory AuditTree: the stored hashes and checkpoints the sealer wrote into the messaging
 * tables (through InMemoryAuditLog's seal session).
 */
export class InMemoryAuditTree implements AuditTree {
  constructor(private readonly tables: InMemoryMessagingTables) {}

  async latestCheckpoint(p: { workspaceId: string }): Promise<StoredCheckpoint | null> {
    return this.tables.auditCheckpoints.get(p.workspaceId) ?? null;
  }

  async readHashes(p: { workspaceId: string; nodes: readonly TreeNode[] }): Promise<Uint8Array[]> {
    return readTreeHashes(this.tables, p.workspaceId, p.nodes);
  }
}

function readTreeHashes(tables: InMemoryMessagingTables, workspaceId: string, nodes: readonly TreeNode[]): Uint8Array[] {
  return nodes.map((node) => {
    const { leafIndex, position } = storedWithLeaf(node);
    const hash = tables.auditTreeHashes.get(auditLinkKeyOf(workspaceId, leafIndex))?.[position];
    if (hash === undefined) throw new Error(`audit tree hash (${node.level}, ${node.index}) is not stored`);
    return hash;
  });
}

function linksOf(tables: InMemoryMessagingTables, workspaceId: string): AuditChainLinkRow[] {
  return tables.auditChain.values().filter((l) => l.workspaceId === workspaceId);
}

function unsealedEntry(row: NewAuditEntry): AuditEntry {
  return { ...row, seq: null, prevHash: null, hash: null, sealedAt: null };
}

function withLink(row: NewAuditEntry, link: AuditChainLinkRow): AuditEntry {
  return { ...row, seq: link.seq, prevHash: link.prevHash, hash: link.hash, sealedAt: link.sealedAt };
}

/** Inserts an unsealed audit row (shared with InMemoryMessageStore, which writes rows as part of its writes). */
export function appendAuditRow(tables: InMemoryMessagingTables, tx: InMemoryTransaction | null, entry: NewAuditEntry): void {
  tables.audit.set(tx, entry.id, entry);
}

function compareDesc(a: string, b: string): number {
  return a < b ? 1 : a > b ? -1 : 0;
}
