import { index, pgTable, primaryKey, smallint, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Idempotency keys per workspace and calling AI account. `body_text` is TEXT, not jsonb, so a
 * replay returns the original response byte for byte.
 */
export const idempotencyKeys = pgTable(
  "idempotency_keys",
  {
    workspaceId: text("workspace_id").notNull(),
    accountId: text("account_id").notNull(),
    key: text("key").notNull(),
    fingerprint: text("fingerprint").notNull(),
    requestId: text("request_id").notNull(),
    status: smallint("status"),
    bodyText: text("body_text"),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [primaryKey({ name: "idempotency_keys_pkey", columns: [t.workspaceId, t.accountId, t.key] }), index("idempotency_keys_expiry_idx").on(t.expiresAt)],
);
