import type { AuditEntry, NewAuditEntry } from "../audit/audit-entry.ts";
import type { TreeNode } from "../audit/transparency-log/tree-coordinates.ts";

// The audit seam: the insert-only audit log, its per-workspace hash chain and the transparency
// log's tree. Every port's general rules: src/ports.ts.

/** A sealer's exclusive view of one workspace's chain, valid inside `AuditLog.withSealLock`. */
export interface AuditSealSession {
  /** The last sealed row's seq and hash, or null when nothing is sealed yet. */
  head(): Promise<{ seq: number; hash: string } | null>;
  /** Up to `limit` unsealed rows of the workspace (rows without a chain link), in seal order (occurredAt, then id). */
  unsealed(p: { limit: number }): Promise<AuditEntry[]>;
  /**
   * Appends the chain links (seq, the row's id, prevHash, hash, sealedAt) of the given rows to
   * the chain, which is kept apart from the rows: audit rows are never updated once inserted.
   */
  appendLinks(p: { links: readonly AuditChainLink[]; sealedAt: Date }): Promise<void>;
  /**
   * Sealed rows with seq > afterSeq, in seq order, at most `limit` (as `AuditLog.readChain`, in
   * this session's transaction): how the Merkle tree catches up with a chain sealed before the
   * tree existed (migration 0019).
   */
  linkedRows(p: { afterSeq: number; limit: number }): Promise<AuditEntry[]>;
  /** How many leaves the workspace's Merkle tree holds; leaf i is the row at seq i + 1. */
  treeSize(): Promise<number>;
  /** Stored hashes of the tree's complete subtrees, as `AuditTree.readHashes`, in this session's transaction. */
  readTreeHashes(p: { nodes: readonly TreeNode[] }): Promise<Uint8Array[]>;
  /**
   * Appends leaves to the tree: leaf `firstLeaf + i` with `hashes[i]`, the hashes appending it
   * stores (its leaf hash, then each subtree it completes, level by level: `TreeFrontier.append`).
   * `firstLeaf` is the tree's size; a leaf is stored once (a second append of it throws).
   */
  appendTreeHashes(p: { firstLeaf: number; hashes: readonly (readonly Uint8Array[])[] }): Promise<void>;
  /** Makes `checkpoint` the workspace's latest signed checkpoint (the sealer signs one per sealing transaction). */
  publishCheckpoint(p: { checkpoint: StoredCheckpoint }): Promise<void>;
  /**
   * Takes the workspace off the tree's backlog (the workspaces whose chain migration 0019 found
   * without a tree), once the tree has caught up with the chain or cannot (a linked row is gone).
   */
  treeCaughtUp(): Promise<void>;
}

/** A signed checkpoint of a workspace's log, as the sealer published it. */
export interface StoredCheckpoint {
  treeSize: number;
  /** The tree's root hash (32 bytes). */
  rootHash: Uint8Array;
  /** The signed note (C2SP tlog-checkpoint), exactly as served. */
  note: string;
  signedAt: Date;
}

/**
 * The read side of each workspace's Merkle tree over its audit rows in seq order (DESIGN §2c
 * Receipts; docs/receipts.md): the hashes of complete subtrees, stored once by the sealer as it
 * appends leaves, and the latest signed checkpoint. A proof reads O(log n) hashes in one call.
 */
export interface AuditTree {
  /** The workspace's latest signed checkpoint, or null before the sealer has published one. */
  latestCheckpoint(p: { workspaceId: string }): Promise<StoredCheckpoint | null>;
  /**
   * The stored hashes of complete subtrees, one per node, in the order asked, in one round trip.
   * @throws Error when a node is not stored (beyond the tree): callers ask only for nodes inside
   * a published checkpoint's tree.
   */
  readHashes(p: { workspaceId: string; nodes: readonly TreeNode[] }): Promise<Uint8Array[]>;
}

/** One link of a workspace's hash chain: the row it seals (`auditId`) at position `seq`. */
export interface AuditChainLink {
  auditId: string;
  seq: number;
  prevHash: string;
  hash: string;
}

/**
 * The per-workspace audit log and its hash chain. Rows are insert-only; the chain is a separate
 * sequence of links (seq, row id, prevHash, hash) appended by the sealer. Every read returns a
 * row with its link's fields (`seq`, `prevHash`, `hash`, `sealedAt`), null until sealed.
 */
export interface AuditLog {
  /** Appends a row (inside the caller's transaction when given a transactional store). */
  append(p: { entry: NewAuditEntry }): Promise<void>;
  /**
   * Rows newest first (occurredAt descending, id descending), optionally filtered by activity
   * (exactly, or `activityContains`: activities containing that text) and by message;
   * operator-significant rows only when asked. `after` is an opaque position returned by
   * `positionOf`.
   */
  list(p: { workspaceId: string; activity: string | null; activityContains?: string | null; messageId: string | null; includeOperatorSignificant: boolean; after: string | null; limit: number }): Promise<AuditEntry[]>;
  /** The keyset position of a row for `list`'s `after`. */
  positionOf(entry: AuditEntry): string;
  /** Every row about one message, oldest first (its timeline). */
  timeline(p: { workspaceId: string; messageId: string }): Promise<AuditEntry[]>;
  /** Sealed rows in seq order, seq > afterSeq, at most limit (a link whose row is gone is skipped: a gap in seq). */
  readChain(p: { workspaceId: string; afterSeq: number; limit: number }): Promise<AuditEntry[]>;
  /**
   * Workspaces the sealer has work in (at most limit): those with unsealed rows, and those whose
   * Merkle tree has not caught up with a chain sealed before it existed (migration 0019's backlog).
   */
  workspacesToSeal(p: { limit: number }): Promise<string[]>;
  /**
   * Runs `fn` holding the workspace's seal lock (an advisory lock in PostgreSQL) inside one
   * transaction; returns null without running it when another sealer holds the lock.
   */
  withSealLock<T>(p: { workspaceId: string }, fn: (session: AuditSealSession) => Promise<T>): Promise<T | null>;
}
