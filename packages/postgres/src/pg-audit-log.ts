import { storedWithLeaf, type AuditEntry, type AuditLog, type AuditSealSession, type AuditTree, type NewAuditEntry, type StoredCheckpoint, type TreeNode } from "@agentq/core";
import type postgres from "postgres";
import { translatePgError, withPgErrors } from "./pg-errors.ts";
import {
  auditLogAppendLinks, auditLogInsert, auditLogRestorePlannerSettings, auditLogList, auditLogReadChain, auditLogSealStart, auditLogTimeline, auditLogTrySealLock, auditLogUnsealed, auditLogWorkspacesToSeal,
} from "./queries/audit-log.ts";
import { auditCheckpointsLatest, auditCheckpointsPublish, auditTreeBacklogRemove, auditTreeHashesAppend, auditTreeHashesRead } from "./queries/audit-tree.ts";
import type { SqlClient } from "./sql-client.ts";

/** Parses a `positionOf` string back into its keyset (occurredAt, id); null when it is not one. */
function parsePosition(position: string): { occurredAt: Date; id: string } | null {
  const slash = position.indexOf("/");
  if (slash <= 0) return null;
  const occurredAt = new Date(position.slice(0, slash));
  const id = position.slice(slash + 1);
  return Number.isNaN(occurredAt.getTime()) || id === "" ? null : { occurredAt, id };
}

/**
 * AuditLog on PostgreSQL: insert-only rows in `audit_log`, the chain's links in `audit_chain`,
 * the sealer's queue in `audit_unsealed` (filled by a trigger); the seal session also appends the
 * workspace's Merkle tree (`audit_tree_hashes`) and replaces its checkpoint (`audit_checkpoints`). Bound to the pool (`transaction: null`) or to one transaction; the
 * seal lock is a transaction-scoped advisory lock, taken in a new transaction when bound to the
 * pool, or in the caller's transaction (held until it ends) when bound to one.
 */
export class PgAuditLog implements AuditLog {
  constructor(
    private readonly sql: SqlClient,
    private readonly pool: postgres.Sql | null,
  ) {}

  append(p: { entry: NewAuditEntry }): Promise<void> {
    return withPgErrors(() => auditLogInsert(this.sql, p));
  }

  list(p: { workspaceId: string; activity: string | null; messageId: string | null; includeOperatorSignificant: boolean; after: string | null; limit: number }): Promise<AuditEntry[]> {
    return withPgErrors(async () => {
      const after = p.after === null ? null : parsePosition(p.after);
      if (p.after !== null && after === null) return [];
      return auditLogList(this.sql, { ...p, after });
    });
  }

  positionOf(entry: AuditEntry): string {
    return `${entry.occurredAt.toISOString()}/${entry.id}`;
  }

  timeline(p: { workspaceId: string; messageId: string }): Promise<AuditEntry[]> {
    return withPgErrors(() => auditLogTimeline(this.sql, p));
  }

  readChain(p: { workspaceId: string; afterSeq: number; limit: number }): Promise<AuditEntry[]> {
    return withPgErrors(() => auditLogReadChain(this.sql, p));
  }

  workspacesToSeal(p: { limit: number }): Promise<string[]> {
    return withPgErrors(() => auditLogWorkspacesToSeal(this.sql, p));
  }

  async withSealLock<T>(p: { workspaceId: string }, fn: (session: AuditSealSession) => Promise<T>): Promise<T | null> {
    const inTransaction = async (tx: postgres.TransactionSql, ownTransaction: boolean): Promise<T | null> => {
      const { locked, replaced } = await auditLogTrySealLock(tx, p);
      if (!locked) {
        if (!ownTransaction) await auditLogRestorePlannerSettings(tx, replaced);
        return null;
      }
      // The head and the tree's size come from one statement; the session hands out the size it read with the head.
      let start: Awaited<ReturnType<typeof auditLogSealStart>> | null = null;
      const readStart = async () => (start ??= await auditLogSealStart(tx, p));
      // Where each unsealed row's queue entry is (its ctid), from `unsealed` to `appendLinks` of the same transaction.
      const queueCtids = new Map<string, string>();
      let after: { occurredAt: Date; id: string } | null = null;
      const session: AuditSealSession = {
        head: async () => (await readStart()).head,
        unsealed: async (q) => {
          const rows = await auditLogUnsealed(tx, { workspaceId: p.workspaceId, limit: q.limit, after });
          const last = rows.at(-1);
          if (last !== undefined) after = { occurredAt: last.occurredAt, id: last.id };
          return rows.map(({ queueCtid, ...entry }) => {
            queueCtids.set(entry.id, queueCtid);
            return entry;
          });
        },
        appendLinks: async (q) => {
          start = null;
          const ctids = q.links.map((l) => queueCtids.get(l.auditId)).filter((c): c is string => c !== undefined);
          await auditLogAppendLinks(tx, { workspaceId: p.workspaceId, links: q.links, queueCtids: ctids, sealedAt: q.sealedAt });
          for (const l of q.links) queueCtids.delete(l.auditId);
        },
        linkedRows: (q) => auditLogReadChain(tx, { workspaceId: p.workspaceId, afterSeq: q.afterSeq, limit: q.limit }),
        treeSize: async () => (await readStart()).treeSize,
        readTreeHashes: (q) => readTreeHashes(tx, p.workspaceId, q.nodes),
        appendTreeHashes: async (q) => {
          start = null;
          await auditTreeHashesAppend(tx, { workspaceId: p.workspaceId, firstLeaf: q.firstLeaf, hashes: q.hashes.map(concatHashes) });
        },
        publishCheckpoint: (q) => auditCheckpointsPublish(tx, { workspaceId: p.workspaceId, checkpoint: q.checkpoint }),
        treeCaughtUp: () => auditTreeBacklogRemove(tx, p),
      };
      const result = await fn(session);
      if (!ownTransaction) await auditLogRestorePlannerSettings(tx, replaced);
      return result;
    };
    try {
      if (this.pool === null) return await inTransaction(this.sql as postgres.TransactionSql, false);
      return (await this.pool.begin((tx) => inTransaction(tx, true))) as T | null;
    } catch (e) {
      throw translatePgError(e);
    }
  }
}

/** One leaf's stored hashes as one value (its row's `hashes`). */
function concatHashes(hashes: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(32 * hashes.length);
  for (const [i, h] of hashes.entries()) out.set(h, 32 * i);
  return out;
}

/** The nodes' hashes from the rows of the leaves that stored them (one statement), in the order asked. */
async function readTreeHashes(sql: SqlClient, workspaceId: string, nodes: readonly TreeNode[]): Promise<Uint8Array[]> {
  const places = nodes.map(storedWithLeaf);
  const rows = await auditTreeHashesRead(sql, { workspaceId, leafIndexes: [...new Set(places.map((w) => w.leafIndex))] });
  return places.map(({ leafIndex, position }) => {
    const hashes = rows.get(leafIndex);
    if (hashes === undefined || hashes.length < 32 * (position + 1)) throw new Error(`audit tree hash of leaf ${leafIndex} at level ${position} is not stored`);
    return hashes.slice(32 * position, 32 * (position + 1));
  });
}

/** AuditTree on PostgreSQL: `audit_tree_hashes` and `audit_checkpoints`, written by PgAuditLog's seal session. */
export class PgAuditTree implements AuditTree {
  constructor(private readonly sql: SqlClient) {}

  latestCheckpoint(p: { workspaceId: string }): Promise<StoredCheckpoint | null> {
    return withPgErrors(() => auditCheckpointsLatest(this.sql, p));
  }

  readHashes(p: { workspaceId: string; nodes: readonly TreeNode[] }): Promise<Uint8Array[]> {
    return withPgErrors(() => readTreeHashes(this.sql, p.workspaceId, p.nodes));
  }
}
