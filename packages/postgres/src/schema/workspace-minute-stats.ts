import { index, integer, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

/**
 * The per-workspace minute series (DESIGN §2c Telemetry), written by the background work
 * (`workspaceMinuteStatsRecord`) about a minute after each minute ends, kept 14 days, read by
 * GET /v1/workspaces/me/stats and the dashboard's charts. Only workspaces with activity or
 * pending messages get rows; a missing minute reads as zeros.
 */
export const workspaceMinuteStats = pgTable(
  "workspace_minute_stats",
  {
    workspaceId: text("workspace_id").notNull(),
    minute: timestamp("minute", { withTimezone: true }).notNull(),
    sent: integer("sent").notNull().default(0),
    acknowledged: integer("acknowledged").notNull().default(0),
    deadLettered: integer("dead_lettered").notNull().default(0),
    pending: integer("pending").notNull().default(0),
    oldestPendingAgeSeconds: integer("oldest_pending_age_seconds").notNull().default(0),
  },
  (t) => [
    primaryKey({ name: "workspace_minute_stats_pkey", columns: [t.workspaceId, t.minute] }),
    // The 14-day purge deletes by minute across workspaces.
    index("workspace_minute_stats_minute_idx").on(t.minute),
  ],
);

/**
 * The same minute series per recipient (an AI account of the workspace): messages sent to it,
 * acknowledged by it and dead-lettered from its queue, and what waits for it. Written by the same
 * pass as `workspace_minute_stats` (only recipients with activity or pending messages get rows),
 * kept 14 days, read by the account page's charts (get_workspace_stats with ai_account_id).
 */
export const recipientMinuteStats = pgTable(
  "recipient_minute_stats",
  {
    workspaceId: text("workspace_id").notNull(),
    aiAccountId: text("ai_account_id").notNull(),
    minute: timestamp("minute", { withTimezone: true }).notNull(),
    sent: integer("sent").notNull().default(0),
    acknowledged: integer("acknowledged").notNull().default(0),
    deadLettered: integer("dead_lettered").notNull().default(0),
    pending: integer("pending").notNull().default(0),
    oldestPendingAgeSeconds: integer("oldest_pending_age_seconds").notNull().default(0),
  },
  (t) => [
    primaryKey({ name: "recipient_minute_stats_pkey", columns: [t.workspaceId, t.aiAccountId, t.minute] }),
    index("recipient_minute_stats_minute_idx").on(t.minute),
  ],
);
