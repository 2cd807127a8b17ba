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
  return (rows[0]?.n ?? 0) + (await recipientMinuteStatsRecord(sql));
}

/**
 * The same pass per recipient, into `recipient_minute_stats`: a send counts for the account its
 * `message.sent` row names (`details.recipient_id`), an ack for its actor (only the recipient
 * holds a lease), a dead letter for the message's recipient (its row has no actor: one lookup by
 * primary key per dead letter); the depth is `waitingPerWorkspace`'s pending, per recipient.
 */
async function recipientMinuteStatsRecord(sql: SqlClient): Promise<number> {
  const rows = await sql<{ n: number }[]>`
    with bounds as (
      select date_trunc('minute', now()) - interval '2 minutes' as from_at,
             date_trunc('minute', now()) - interval '1 minute' as last_minute,
             date_trunc('minute', now()) as to_at
    ),
    rows_of as (
      select a.workspace_id, date_trunc('minute', a.occurred_at) as minute, a.activity,
             case a.activity
               when 'message.sent' then a.details ->> 'recipient_id'
               when 'message.acknowledged' then a.actor_account_id
               else (select m.recipient_id from messages m where m.workspace_id = a.workspace_id and m.id = a.message_id)
             end as recipient_id
      from audit_log a, bounds b
      where a.occurred_at >= b.from_at and a.occurred_at < b.to_at
        and a.activity in ('message.sent', 'message.acknowledged', 'message.dead_lettered')
    ),
    events as (
      select workspace_id, recipient_id, minute,
             count(*) filter (where activity = 'message.sent')::int as sent,
             count(*) filter (where activity = 'message.acknowledged')::int as acknowledged,
             count(*) filter (where activity = 'message.dead_lettered')::int as dead_lettered
      from rows_of where recipient_id is not null
      group by 1, 2, 3
    ),
    waiting as (
      select workspace_id, recipient_id, count(*)::int as pending, min(accepted_at) as oldest_pending_at
      from messages
      -- The same range of the partial expiry index as waitingPerWorkspace, pending ones only.
      where state in ('pending', 'held', 'held_for_approval') and expires_at > now() and state = 'pending'
      group by 1, 2
    ),
    last_events as (select e.* from events e, bounds b where e.minute = b.last_minute),
    minutes as (
      select coalesce(e.workspace_id, w.workspace_id) as workspace_id, coalesce(e.recipient_id, w.recipient_id) as recipient_id, b.last_minute as minute,
             coalesce(e.sent, 0) as sent, coalesce(e.acknowledged, 0) as acknowledged, coalesce(e.dead_lettered, 0) as dead_lettered,
             coalesce(w.pending, 0) as pending, coalesce(floor(extract(epoch from now() - w.oldest_pending_at))::int, 0) as oldest_pending_age_seconds
      from (last_events e full join waiting w on w.workspace_id = e.workspace_id and w.recipient_id = e.recipient_id) cross join bounds b
      union all
      select e.workspace_id, e.recipient_id, e.minute, e.sent, e.acknowledged, e.dead_lettered, 0, 0
      from events e, bounds b where e.minute < b.last_minute
    ),
    written as (
      insert into recipient_minute_stats as s (workspace_id, ai_account_id, minute, sent, acknowledged, dead_lettered, pending, oldest_pending_age_seconds)
      select workspace_id, recipient_id, minute, sent, acknowledged, dead_lettered, pending, oldest_pending_age_seconds from minutes
      on conflict (workspace_id, ai_account_id, minute) do update
        set sent = excluded.sent, acknowledged = excluded.acknowledged, dead_lettered = excluded.dead_lettered,
            pending = case when excluded.minute = date_trunc('minute', now()) - interval '1 minute' then excluded.pending else s.pending end,
            oldest_pending_age_seconds = case when excluded.minute = date_trunc('minute', now()) - interval '1 minute' then excluded.oldest_pending_age_seconds else s.oldest_pending_age_seconds end
      returning 1
    )
    select count(*)::int as n from written`;
  return rows[0]?.n ?? 0;
}

/**
 * A workspace's stored minutes from `from` on, oldest first (a range of the primary key); with
 * `aiAccountId`, that recipient's minutes (`recipient_minute_stats`).
 */
export async function workspaceMinuteStatsList(sql: SqlClient, p: { workspaceId: string; from: Date; aiAccountId?: string | null }): Promise<MinuteStats[]> {
  type Row = { minute: Date; sent: number; acknowledged: number; dead_lettered: number; pending: number; oldest_pending_age_seconds: number };
  const rows =
    p.aiAccountId === undefined || p.aiAccountId === null
      ? await sql<Row[]>`
    select minute, sent, acknowledged, dead_lettered, pending, oldest_pending_age_seconds
    from workspace_minute_stats
    where workspace_id = ${p.workspaceId} and minute >= ${p.from}
    order by minute
    limit 1442`
      : await sql<Row[]>`
    select minute, sent, acknowledged, dead_lettered, pending, oldest_pending_age_seconds
    from recipient_minute_stats
    where workspace_id = ${p.workspaceId} and ai_account_id = ${p.aiAccountId} and minute >= ${p.from}
    order by minute
    limit 1442`;
  return rows.map((r) => ({ minute: r.minute, sent: r.sent, acknowledged: r.acknowledged, deadLettered: r.dead_lettered, pending: r.pending, oldestPendingAgeSeconds: r.oldest_pending_age_seconds }));
}

/** Deletes the minutes before `before` (the 14-day retention), at most 50,000 of each table per call. */
export async function workspaceMinuteStatsPurge(sql: SqlClient, p: { before: Date }): Promise<number> {
  const rows = await sql<{ n: number }[]>`
    with gone as (
      delete from workspace_minute_stats
      where (workspace_id, minute) in (select workspace_id, minute from workspace_minute_stats where minute < ${p.before} limit 50000)
      returning 1
    ),
    gone_per_recipient as (
      delete from recipient_minute_stats
      where (workspace_id, ai_account_id, minute) in (select workspace_id, ai_account_id, minute from recipient_minute_stats where minute < ${p.before} limit 50000)
      returning 1
    )
    select (select count(*) from gone)::int + (select count(*) from gone_per_recipient)::int as n`;
  return rows[0]?.n ?? 0;
}
