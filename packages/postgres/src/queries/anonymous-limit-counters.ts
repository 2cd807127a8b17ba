import type { SqlClient } from "../sql-client.ts";

/**
 * Counts `cost` requests of (bucket, key) at `now` in ONE statement and returns the window's count
 * after it and its end: a new row opens a window [now, now + windowMs); a row whose window ended
 * at or before `now` is restarted the same way; otherwise the count grows and the end stays (SET
 * expressions read the row as it was). Locks: the (bucket, key) row, by the insert or by
 * `ON CONFLICT DO UPDATE`, for the length of this statement (autocommit, never inside a request's
 * transaction), so concurrent hits queue on it and none is lost.
 */
export async function anonymousLimitCountersHit(sql: SqlClient, p: { bucket: string; key: string; now: Date; windowMs: number; cost: number }): Promise<{ count: number; windowEndsAt: Date }> {
  const endsAt = new Date(p.now.getTime() + p.windowMs);
  const [row] = await sql<{ count: number; window_ends_at: Date }[]>`
    insert into anonymous_limit_counters as c (bucket, key, window_start, window_ends_at, count)
    values (${p.bucket}, ${p.key}, ${p.now}, ${endsAt}, ${p.cost})
    on conflict (bucket, key) do update set
      count = case when c.window_ends_at <= excluded.window_start then excluded.count else c.count + excluded.count end,
      window_start = case when c.window_ends_at <= excluded.window_start then excluded.window_start else c.window_start end,
      window_ends_at = case when c.window_ends_at <= excluded.window_start then excluded.window_ends_at else c.window_ends_at end
    returning count, window_ends_at`;
  if (row === undefined) throw new Error("anonymousLimitCountersHit: the upsert returned no row");
  return { count: row.count, windowEndsAt: row.window_ends_at };
}

/** Deletes counters whose window ended before `before`; returns how many. */
export async function anonymousLimitCountersPurgeBefore(sql: SqlClient, p: { before: Date }): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    with deleted as (delete from anonymous_limit_counters where window_ends_at < ${p.before} returning 1)
    select count(*)::int as n from deleted`;
  return row?.n ?? 0;
}
