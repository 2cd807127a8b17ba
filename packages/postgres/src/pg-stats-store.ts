import type { StatsStore } from "@agentq/core";
import { queryStore } from "./pg-query-store.ts";
import { workspaceMinuteStatsList, workspaceMinuteStatsPurge, workspaceMinuteStatsRecord } from "./queries/workspace-minute-stats.ts";

/** StatsStore on PostgreSQL: the minute series in `workspace_minute_stats` and, per recipient, `recipient_minute_stats` (src/queries/workspace-minute-stats.ts). */
export class PgStatsStore extends queryStore({ recordMinutes: workspaceMinuteStatsRecord, listMinutes: workspaceMinuteStatsList, purgeBefore: workspaceMinuteStatsPurge }) implements StatsStore {}
