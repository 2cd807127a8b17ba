import { bigint, customType, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/** A PostgreSQL `bytea` column, read and written as bytes. */
const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => "bytea" });

/**
 * Each workspace's Merkle tree over its audit chain (DESIGN §2c Receipts, docs/receipts.md): one
 * row per leaf (leaf i is the chain's seq i + 1), appended by the sealer in the transaction that
 * seals the row, never updated. `hashes` is the 32-byte hashes appending the leaf stored (tlog's
 * `StoredHashes`): the leaf's own hash, then the hash of every complete subtree the leaf
 * completes, level by level; so the subtree (level L, index k) is at byte 32·L of the row of
 * leaf (k + 1)·2^L − 1, and every complete subtree's hash is stored exactly once.
 */
export const auditTreeHashes = pgTable(
  "audit_tree_hashes",
  {
    workspaceId: text("workspace_id").notNull(),
    leafIndex: bigint("leaf_index", { mode: "number" }).notNull(),
    hashes: bytea("hashes").notNull(),
  },
  (t) => [primaryKey({ name: "audit_tree_hashes_pkey", columns: [t.workspaceId, t.leafIndex] })],
);

/** Each workspace's latest signed checkpoint (a C2SP tlog-checkpoint note), replaced by the sealer in the transaction that grows the tree. */
export const auditCheckpoints = pgTable("audit_checkpoints", {
  workspaceId: text("workspace_id").primaryKey(),
  treeSize: bigint("tree_size", { mode: "number" }).notNull(),
  rootHash: bytea("root_hash").notNull(),
  note: text("note").notNull(),
  signedAt: timestamp("signed_at", { withTimezone: true, precision: 3 }).notNull(),
});

/**
 * Workspaces whose chain was sealed before the tree existed (filled by migration 0019): the
 * sealer visits them even when idle, catches their tree up, then takes them off.
 */
export const auditTreeBacklog = pgTable("audit_tree_backlog", {
  workspaceId: text("workspace_id").primaryKey(),
});
