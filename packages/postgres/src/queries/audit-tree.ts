import type { StoredCheckpoint } from "@agentq/core";
import type { SqlClient } from "../sql-client.ts";

/** Plain bytes of a bytea value (the driver hands out Buffers). */
function bytesOf(value: Uint8Array): Uint8Array {
  return Uint8Array.from(value);
}

/** Hex of bytes, for text[] parameters decoded in SQL (`decode(h, 'hex')`). */
function hexOf(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("hex");
}

/** The stored hashes of the given leaves (each leaf's hashes concatenated), by leaf index: key lookups only. */
export async function auditTreeHashesRead(sql: SqlClient, p: { workspaceId: string; leafIndexes: readonly number[] }): Promise<Map<number, Uint8Array>> {
  if (p.leafIndexes.length === 0) return new Map();
  const rows = await sql<{ leaf_index: string; hashes: Uint8Array }[]>`
    select leaf_index, hashes from audit_tree_hashes
    where workspace_id = ${p.workspaceId} and leaf_index = any(${[...p.leafIndexes]}::int8[])`;
  return new Map(rows.map((r) => [Number(r.leaf_index), bytesOf(r.hashes)]));
}

/**
 * Appends leaves `firstLeaf`, `firstLeaf + 1`, ... with their stored hashes (each leaf's hashes
 * concatenated), in one statement. Runs under the workspace's seal lock; the key (workspace,
 * leaf index) refuses a leaf stored twice. Reads nothing.
 */
export async function auditTreeHashesAppend(sql: SqlClient, p: { workspaceId: string; firstLeaf: number; hashes: readonly Uint8Array[] }): Promise<void> {
  if (p.hashes.length === 0) return;
  await sql`
    insert into audit_tree_hashes (workspace_id, leaf_index, hashes)
    select ${p.workspaceId}, ${p.firstLeaf}::int8 + s.ord - 1, decode(s.h, 'hex')
    from unnest(${p.hashes.map(hexOf)}::text[]) with ordinality as s(h, ord)`;
}

interface CheckpointRow {
  tree_size: string;
  root_hash: Uint8Array;
  note: string;
  signed_at: Date;
}

/** The workspace's latest signed checkpoint, or null. */
export async function auditCheckpointsLatest(sql: SqlClient, p: { workspaceId: string }): Promise<StoredCheckpoint | null> {
  const [row] = await sql<CheckpointRow[]>`
    select tree_size, root_hash, note, signed_at from audit_checkpoints where workspace_id = ${p.workspaceId}`;
  return row === undefined ? null : { treeSize: Number(row.tree_size), rootHash: bytesOf(row.root_hash), note: row.note, signedAt: row.signed_at };
}

/** Makes `checkpoint` the workspace's latest (insert or replace by key; the sealer's lock serializes writers). */
export async function auditCheckpointsPublish(sql: SqlClient, p: { workspaceId: string; checkpoint: StoredCheckpoint }): Promise<void> {
  const c = p.checkpoint;
  await sql`
    insert into audit_checkpoints (workspace_id, tree_size, root_hash, note, signed_at)
    values (${p.workspaceId}, ${c.treeSize}, decode(${hexOf(c.rootHash)}, 'hex'), ${c.note}, ${c.signedAt})
    on conflict (workspace_id) do update set tree_size = excluded.tree_size, root_hash = excluded.root_hash, note = excluded.note, signed_at = excluded.signed_at`;
}

/** Takes the workspace off the tree's backlog (migration 0019's list of chains without a tree). */
export async function auditTreeBacklogRemove(sql: SqlClient, p: { workspaceId: string }): Promise<void> {
  await sql`delete from audit_tree_backlog where workspace_id = ${p.workspaceId}`;
}
