import { sql } from "drizzle-orm";
import { bigint, boolean, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

/**
 * The per-workspace audit log, insert-only. Rows are inserted by the transaction that made the
 * change (no per-workspace hot row on the send path) and never updated: the sealer links them
 * into the hash chain by appending to `audit_chain` (migration 0010 moved the former seal
 * columns there). An AFTER INSERT trigger (migration 0010) queues every new row in
 * `audit_unsealed`, whatever statement inserted it, so writers only ever insert audit rows.
 */
export const auditLog = pgTable(
  "audit_log",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    occurredAt: timestamp("occurred_at", { withTimezone: true, precision: 3 }).notNull(),
    activity: text("activity").notNull(),
    actorAccountId: text("actor_account_id"),
    actorCredentialId: text("actor_credential_id"),
    subjectType: text("subject_type").notNull(),
    subjectId: text("subject_id").notNull(),
    messageId: text("message_id"),
    details: jsonb("details").notNull(),
    operatorSignificant: boolean("operator_significant").notNull().default(false),
    requestId: text("request_id"),
  },
  (t) => [
    primaryKey({ name: "audit_log_pkey", columns: [t.workspaceId, t.id] }),
    index("audit_log_message_idx").on(t.workspaceId, t.messageId, t.occurredAt, t.id).where(sql`message_id is not null`),
    index("audit_log_newest_idx").on(t.workspaceId, t.occurredAt.desc(), t.id.desc()),
    // The monthly plan cap counts a workspace's accepted messages from their `message.sent` rows.
    index("audit_log_sent_idx").on(t.workspaceId, t.occurredAt).where(sql`activity = 'message.sent'`),
    // The minute series counts the last minutes' rows across workspaces: a BRIN index (rows are
    // appended in about time order) costs a send next to nothing, unlike a B-tree on occurred_at.
    index("audit_log_occurred_brin").using("brin", t.occurredAt),
  ],
);

/**
 * The hash chain of each workspace: one link per sealed audit row, appended by the sealer in seal
 * order under the workspace's seal lock, never updated. `hash` is SHA-256 of `prev_hash` and the
 * row's canonical form with `seq` (packages/core audit-hash.ts).
 */
export const auditChain = pgTable(
  "audit_chain",
  {
    workspaceId: text("workspace_id").notNull(),
    seq: bigint("seq", { mode: "number" }).notNull(),
    auditId: text("audit_id").notNull(),
    prevHash: text("prev_hash").notNull(),
    hash: text("hash").notNull(),
    sealedAt: timestamp("sealed_at", { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [
    primaryKey({ name: "audit_chain_pkey", columns: [t.workspaceId, t.seq] }),
    // A row is linked once; also how a read finds a row's link.
    uniqueIndex("audit_chain_audit_id_key").on(t.workspaceId, t.auditId),
  ],
);

/**
 * The sealer's work queue: the audit rows not linked yet, in seal order (occurred_at, id). Filled
 * by the AFTER INSERT trigger on `audit_log`; the sealer deletes a row's entry in the statement
 * that appends its link. Small (it holds about a second of rows), so its churn stays cheap.
 */
export const auditUnsealed = pgTable(
  "audit_unsealed",
  {
    workspaceId: text("workspace_id").notNull(),
    occurredAt: timestamp("occurred_at", { withTimezone: true, precision: 3 }).notNull(),
    auditId: text("audit_id").notNull(),
  },
  (t) => [primaryKey({ name: "audit_unsealed_pkey", columns: [t.workspaceId, t.occurredAt, t.auditId] })],
);
