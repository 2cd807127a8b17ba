import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, primaryKey, smallint, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Webhooks: push the received messages of one AI account to one URL. The filter is two columns
 * the send statement evaluates itself (a template allow-list, null for any; a lowest priority
 * rank, null for any). `signing_keys` is a JSON array of `{id, seal, createdAt, expiresAt}`,
 * current key first; the keys themselves are never stored. A deleted webhook keeps its row
 * (`deleted_at`).
 */
export const webhooks = pgTable(
  "webhooks",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    aiAccountId: text("ai_account_id").notNull(),
    url: text("url").notNull(),
    name: text("name").notNull(),
    state: text("state").notNull().default("active"),
    filterTemplates: text("filter_templates").array(),
    filterMinPriorityRank: smallint("filter_min_priority_rank"),
    maxAttempts: integer("max_attempts").notNull().default(6),
    signingKeys: jsonb("signing_keys").notNull().default(sql`'[]'::jsonb`),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    deletedAt: timestamp("deleted_at", { withTimezone: true, precision: 3 }),
  },
  (t) => [
    primaryKey({ name: "webhooks_pkey", columns: [t.workspaceId, t.id] }),
    // A send looks up the recipient's live webhooks.
    index("webhooks_live_idx").on(t.workspaceId, t.aiAccountId).where(sql`deleted_at is null and state = 'active'`),
  ],
);

/**
 * The transactional outbox of webhook deliveries, written in the same transaction as the send.
 * A dispatcher claims due rows by moving `next_attempt_at` forward by its lease and setting
 * `claim_token`; its result writes are guarded by that token.
 */
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
    nextAttemptAt: timestamp("next_attempt_at", { withTimezone: true }).notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
    lastAttemptAt: timestamp("last_attempt_at", { withTimezone: true }),
    lastStatus: smallint("last_status"),
    lastError: text("last_error"),
    deliveredAt: timestamp("delivered_at", { withTimezone: true }),
    deadAt: timestamp("dead_at", { withTimezone: true }),
    claimToken: text("claim_token"),
    /** The traceparent of the message the delivery is about (the `traceparent` header of each attempt), or null. */
    traceparent: text("traceparent"),
  },
  (t) => [
    primaryKey({ name: "webhook_outbox_pkey", columns: [t.workspaceId, t.id] }),
    // The dispatcher's work queue: only deliveries still to attempt, in due order.
    index("webhook_outbox_due_idx").on(t.nextAttemptAt, t.id).where(sql`state in ('pending', 'retrying')`),
    index("webhook_outbox_webhook_idx").on(t.workspaceId, t.webhookId, t.id),
    // The retention purge: finished deliveries in the order they finished.
    index("webhook_outbox_finished_idx").on(sql`coalesce(${t.deliveredAt}, ${t.deadAt})`).where(sql`state in ('delivered', 'dead')`),
    check("webhook_outbox_state_check", sql`${t.state} in ('pending', 'retrying', 'delivered', 'dead')`),
  ],
);
