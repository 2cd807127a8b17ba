import type { MinuteStats } from "@agentq/core";
import type { SqlClient } from "../sql-client.ts";
import { waitingPerWorkspace } from "./queue-stats.ts";

/**
 * Writes the last two whole minutes (by the database clock) of every workspace with activity:
 * sends, acks and dead letters counted from those minutes' audit rows (a range of the BRIN index
 * on occurred_at), recounted on each pass so a row committed late still counts and a second
 * writer changes nothing; and the depth and lag read now (`waitingPerWorkspace`, the gauges'
 * reading) into the last whole minute. Upserts on (workspace_id, minute); takes no other lock.
 * Returns the rows written.
 */
export async function workspaceMinuteStatsRecord(sql: SqlClient): Promise<number> {
  const rows = await sql<{ n: number }[]>`
    with bounds as (
      select date_trunc('minute', now()) - interval '2 minutes' as from_at,
             date_trunc('minute', now()) - interval '1 minute' as last_minute,
             date_trunc('minute', now()) as to_at
    ),
    events as (
      select a.workspace_id, date_trunc('minute', a.occurred_at) as minute,
             count(*) filter (where a.activity = 'message.sent')::int as sent,
             count(*) filter (where a.activity = 'message.acknowledged')::int as acknowledged,
             count(*) filter (where a.activity = 'message.dead_lettered')::int as dead_lettered
      from audit_log a, bounds b
      where a.occurred_at >= b.from_at and a.occurred_at < b.to_at
        and a.activity in ('message.sent', 'message.acknowledged', 'message.dead_lettered')
      group by 1, 2
    ),
    waiting as (${waitingPerWorkspace(sql)}),
    last_events as (select e.* from events e, bounds b where e.minute = b.last_minute),
    minutes as (
      -- The last whole minute: its events and the depth read now, for every workspace with either.
      select coalesce(e.workspace_id, w.workspace_id) as workspace_id, b.last_minute as minute,
             coalesce(e.sent, 0) as sent, coalesce(e.acknowledged, 0) as acknowledged, coalesce(e.dead_lettered, 0) as dead_lettered,
             coalesce(w.pending, 0) as pending, coalesce(floor(extract(epoch from now() - w.oldest_pending_at))::int, 0) as oldest_pending_age_seconds
      from (last_events e full join waiting w on w.workspace_id = e.workspace_id) cross join bounds b
      union all
      -- The minute before: its events recounted; its depth stays what the last pass read.
      select e.workspace_id, e.minute, e.sent, e.acknowledged, e.dead_lettered, 0, 0
      from events e, bounds b where e.minute < b.last_minute
    ),
    written as (
      insert into workspace_minute_stats as s (workspace_id, minute, sent, acknowledged, dead_lettered, pending, oldest_pending_age_seconds)
      select workspace_id, minute, sent, acknowledged, dead_lettered, pending, oldest_pending_age_seconds from minutes
      on conflict (workspace_id, minute) do update
        set sent = excluded.sent, acknowledged = excluded.acknowledged, dead_lettered = excluded.dead_lettered,
            pending = case when excluded.minute = date_trunc('minute', now()) - interval '1 minute' then excluded.pending else s.pending end,
            oldest_pending_age_seconds = case when excluded.minute = date_trunc('minute', now()) - interval '1 minute' then excluded.oldest_pending_age_seconds else s.oldest_pending_age_seconds end
      returning 1
    )
    select count(*)::int as n from written`;
  return rows[0]?.n ?? 0;
}

/** A workspace's stored minutes from `from` on, oldest first (a range of the primary key). */
export async function workspaceMinuteStatsList(sql: SqlClient, p: { workspaceId: string; from: Date }): Promise<MinuteStats[]> {
  const rows = await sql<{ minute: Date; sent: number; acknowledged: number; dead_lettered: number; pending: number; oldest_pending_age_seconds: number }[]>`
    select minute, sent, acknowledged, dead_lettered, pending, oldest_pending_age_seconds
    from workspace_minute_stats
    where workspace_id = ${p.workspaceId} and minute >= ${p.from}
    order by minute
    limit 1442`;
  return rows.map((r) => ({ minute: r.minute, sent: r.sent, acknowledged: r.acknowledged, deadLettered: r.dead_lettered, pending: r.pending, oldestPendingAgeSeconds: r.oldest_pending_age_seconds }));
}

/** Deletes the minutes before `before` (the 14-day retention), at most 50,000 per call. */
export async function workspaceMinuteStatsPurge(sql: SqlClient, p: { before: Date }): Promise<number> {
  const rows = await sql<{ n: number }[]>`
    with gone as (
      delete from workspace_minute_stats
      where (workspace_id, minute) in (select workspace_id, minute from workspace_minute_stats where minute < ${p.before} limit 50000)
      returning 1
    )
    select count(*)::int as n from gone`;
  return rows[0]?.n ?? 0;
}
