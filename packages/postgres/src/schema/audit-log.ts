import { sql } from "drizzle-orm";
import { bigint, boolean, index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

/**
 * The per-workspace audit log. Rows are inserted unsealed by the transaction that made the change
 * (no per-workspace hot row on the send path); the sealer later sets `seq`, `prev_hash` and
 * `hash` in seal order under the workspace's advisory lock.
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
    seq: bigint("seq", { mode: "number" }),
    prevHash: text("prev_hash"),
    hash: text("hash"),
    sealedAt: timestamp("sealed_at", { withTimezone: true, precision: 3 }),
  },
  (t) => [
    primaryKey({ name: "audit_log_pkey", columns: [t.workspaceId, t.id] }),
    uniqueIndex("audit_log_seq_key").on(t.workspaceId, t.seq),
    // The sealer's work queue: only unsealed rows, in seal order.
    index("audit_log_unsealed_idx").on(t.workspaceId, t.occurredAt, t.id).where(sql`seq is null`),
    index("audit_log_message_idx").on(t.workspaceId, t.messageId, t.occurredAt, t.id).where(sql`message_id is not null`),
    index("audit_log_newest_idx").on(t.workspaceId, t.occurredAt.desc(), t.id.desc()),
    // The monthly plan cap counts a workspace's accepted messages from their `message.sent` rows.
    index("audit_log_sent_idx").on(t.workspaceId, t.occurredAt).where(sql`activity = 'message.sent'`),
  ],
);
