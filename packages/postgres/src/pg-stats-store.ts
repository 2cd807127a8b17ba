import type { MinuteStats, StatsStore } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import { workspaceMinuteStatsList, workspaceMinuteStatsPurge, workspaceMinuteStatsRecord } from "./queries/workspace-minute-stats.ts";
import type { SqlClient } from "./sql-client.ts";

/** StatsStore on PostgreSQL: the minute series in `workspace_minute_stats` and, per recipient, `recipient_minute_stats` (src/queries/workspace-minute-stats.ts). */
export class PgStatsStore implements StatsStore {
  constructor(private readonly sql: SqlClient) {}

  recordMinutes(): Promise<number> {
    return withPgErrors(() => workspaceMinuteStatsRecord(this.sql));
  }

  listMinutes(p: { workspaceId: string; from: Date; aiAccountId?: string | null }): Promise<MinuteStats[]> {
    return withPgErrors(() => workspaceMinuteStatsList(this.sql, p));
  }

  purgeBefore(p: { before: Date }): Promise<number> {
    return withPgErrors(() => workspaceMinuteStatsPurge(this.sql, p));
  }
}
