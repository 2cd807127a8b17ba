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
