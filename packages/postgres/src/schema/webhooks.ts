import { sql } from "drizzle-orm";
import { index, integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/** Webhooks (minimal: destination and liveness; signing keys and filters come later). */
export const webhooks = pgTable(
  "webhooks",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    aiAccountId: text("ai_account_id").notNull(),
    url: text("url").notNull(),
    name: text("name").notNull(),
    state: text("state").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
    deletedAt: timestamp("deleted_at", { withTimezone: true, precision: 3 }),
  },
  (t) => [
    primaryKey({ name: "webhooks_pkey", columns: [t.workspaceId, t.id] }),
    // A send looks up the recipient's live webhooks.
    index("webhooks_live_idx").on(t.workspaceId, t.aiAccountId).where(sql`deleted_at is null and state = 'active'`),
  ],
);

/** The transactional outbox of webhook deliveries, written in the same transaction as the send. */
export const webhookOutbox = pgTable(
  "webhook_outbox",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    webhookId: text("webhook_id").notNull(),
    messageId: text("message_id"),
    eventType: text("event_type").notNull(),
    payload: jsonb("payload").notNull(),
    state: text("state").notNull(),
    attempts: integer("attempts").notNull().default(0),
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true, precision: 3 }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [
    primaryKey({ name: "webhook_outbox_pkey", columns: [t.workspaceId, t.id] }),
    // The dispatcher's work queue: only deliveries still to attempt.
    index("webhook_outbox_due_idx").on(t.nextAttemptAt).where(sql`state in ('pending', 'retrying')`),
    index("webhook_outbox_webhook_idx").on(t.workspaceId, t.webhookId, t.id),
  ],
);
