import type { SqlClient } from "../sql-client.ts";

/**
 * Adds `cost` to the credential's and the workspace's counter of the window in ONE statement and
 * returns both totals after the hit. Locks: each counter row, by the insert or by
 * `ON CONFLICT DO UPDATE` (concurrent hits on one bucket queue on that row for the length of
 * one statement; autocommit, never inside a request's transaction), so no count is lost.
 */
export async function rateLimitCountersHit(sql: SqlClient, p: { workspaceId: string; credentialId: string; windowStart: Date; cost: number }): Promise<{ credential: number; workspace: number }> {
  const rows = await sql<{ bucket: "credential" | "workspace"; count: number }[]>`
    insert into rate_limit_counters (workspace_id, bucket, subject_id, window_start, count)
    values (${p.workspaceId}, 'credential', ${p.credentialId}, ${p.windowStart}, ${p.cost}),
           (${p.workspaceId}, 'workspace', ${p.workspaceId}, ${p.windowStart}, ${p.cost})
    on conflict (workspace_id, bucket, subject_id, window_start) do update set count = rate_limit_counters.count + excluded.count
    returning bucket, count`;
  return { credential: rows.find((r) => r.bucket === "credential")?.count ?? 0, workspace: rows.find((r) => r.bucket === "workspace")?.count ?? 0 };
}

/** Deletes counters of windows that started before `before`; returns how many. */
export async function rateLimitCountersPurgeBefore(sql: SqlClient, p: { before: Date }): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    with deleted as (delete from rate_limit_counters where window_start < ${p.before} returning 1)
    select count(*)::int as n from deleted`;
  return row?.n ?? 0;
}
