import type { ImportRecord, ImportRow, ReplaceResult, UsageDayRow, UsageFigures, UsageReport } from "@agentq/core";
import type postgres from "postgres";
import type { SqlClient } from "../sql-client.ts";
import { docOf } from "./json.ts";

// Usage reports and markdown imports (schema/records.ts).


interface UsageRow {
  workspace_id: string;
  id: string;
  project_id: string;
  build_session_id: string;
  ai_account_id: string;
  model: string;
  reported_at: Date;
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_micro_usd: number;
  d_input_tokens: number;
  d_output_tokens: number;
  d_cache_read_tokens: number;
  d_cache_write_tokens: number;
  d_cost_micro_usd: number;
}

const figures = (r: Record<string, number>, prefix: string): UsageFigures => ({
  input_tokens: Number(r[`${prefix}input_tokens`]),
  output_tokens: Number(r[`${prefix}output_tokens`]),
  cache_read_tokens: Number(r[`${prefix}cache_read_tokens`]),
  cache_write_tokens: Number(r[`${prefix}cache_write_tokens`]),
  cost_micro_usd: Number(r[`${prefix}cost_micro_usd`]),
});

/** Inserts a usage report. */
export async function usageInsert(sql: SqlClient, p: { report: UsageReport }): Promise<void> {
  const r = p.report;
  const c = r.cumulative;
  const d = r.delta;
  await sql`
    insert into usage_reports (workspace_id, id, project_id, build_session_id, ai_account_id, model, reported_at, input_tokens, output_tokens, cache_read_tokens, cache_write_tokens, cost_micro_usd,
      d_input_tokens, d_output_tokens, d_cache_read_tokens, d_cache_write_tokens, d_cost_micro_usd)
    values (${r.workspaceId}, ${r.id}, ${r.projectId}, ${r.buildSessionId}, ${r.aiAccountId}, ${r.model}, ${r.reportedAt}, ${c.input_tokens}, ${c.output_tokens}, ${c.cache_read_tokens}, ${c.cache_write_tokens}, ${c.cost_micro_usd},
      ${d.input_tokens}, ${d.output_tokens}, ${d.cache_read_tokens}, ${d.cache_write_tokens}, ${d.cost_micro_usd})`;
}

/** The newest report of each model of a session. */
export async function usageLatest(sql: SqlClient, p: { workspaceId: string; buildSessionId: string }): Promise<UsageReport[]> {
  const rows = await sql<UsageRow[]>`
    select distinct on (model) * from usage_reports
    where workspace_id = ${p.workspaceId} and build_session_id = ${p.buildSessionId}
    order by model, id desc`;
  return rows.map((r) => ({
    workspaceId: r.workspace_id,
    id: r.id,
    projectId: r.project_id,
    buildSessionId: r.build_session_id,
    aiAccountId: r.ai_account_id,
    model: r.model,
    reportedAt: r.reported_at,
    cumulative: figures(r as unknown as Record<string, number>, ""),
    delta: figures(r as unknown as Record<string, number>, "d_"),
  }));
}

/** Differences per (session, model, UTC day) in [since, until], with the sessions' times. */
export async function usageByDay(sql: SqlClient, p: { workspaceId: string; projectId: string | null; aiAccountId: string | null; buildSessionId: string | null; since: Date; until: Date }): Promise<UsageDayRow[]> {
  const rows = await sql<(Record<string, number> & { build_session_id: string; project_id: string; ai_account_id: string; model: string; day: Date; started_at: Date; ended_at: Date | null; active_seconds: number })[]>`
    select u.build_session_id, u.project_id, u.ai_account_id, u.model, date_trunc('day', u.reported_at, 'UTC') as day,
      sum(u.d_input_tokens)::text as input_tokens, sum(u.d_output_tokens)::text as output_tokens, sum(u.d_cache_read_tokens)::text as cache_read_tokens,
      sum(u.d_cache_write_tokens)::text as cache_write_tokens, sum(u.d_cost_micro_usd)::text as cost_micro_usd,
      min(s.started_at) as started_at, min(s.ended_at) as ended_at, min(s.active_seconds) as active_seconds
    from usage_reports u join build_sessions s on s.workspace_id = u.workspace_id and s.id = u.build_session_id
    where u.workspace_id = ${p.workspaceId} and u.reported_at >= ${p.since} and u.reported_at <= ${p.until}
      and (${p.projectId}::text is null or u.project_id = ${p.projectId})
      and (${p.aiAccountId}::text is null or u.ai_account_id = ${p.aiAccountId})
      and (${p.buildSessionId}::text is null or u.build_session_id = ${p.buildSessionId})
    group by u.build_session_id, u.project_id, u.ai_account_id, u.model, date_trunc('day', u.reported_at, 'UTC')`;
  return rows.map((r) => ({ buildSessionId: r.build_session_id, projectId: r.project_id, aiAccountId: r.ai_account_id, model: r.model, day: r.day, figures: figures(r, ""), session: { startedAt: r.started_at, endedAt: r.ended_at, activeSeconds: Number(r.active_seconds) } }));
}

/** The summed differences of the given sessions. */
export async function usageTotalsForSessions(sql: SqlClient, p: { workspaceId: string; buildSessionIds: readonly string[] }): Promise<UsageFigures> {
  const [row] = await sql<Record<string, number>[]>`
    select coalesce(sum(d_input_tokens), 0)::text as input_tokens, coalesce(sum(d_output_tokens), 0)::text as output_tokens, coalesce(sum(d_cache_read_tokens), 0)::text as cache_read_tokens,
      coalesce(sum(d_cache_write_tokens), 0)::text as cache_write_tokens, coalesce(sum(d_cost_micro_usd), 0)::text as cost_micro_usd
    from usage_reports where workspace_id = ${p.workspaceId} and build_session_id = any(${[...p.buildSessionIds]}::text[])`;
  return figures(row ?? {}, "");
}

// ---- imports ------------------------------------------------------------------------------

const reviveImport = (doc: unknown): ImportRecord => {
  const d = doc as Record<string, unknown>;
  return { ...(d as unknown as ImportRecord), committedAt: d["committedAt"] === null ? null : new Date(d["committedAt"] as string), createdAt: new Date(d["createdAt"] as string), updatedAt: new Date(d["updatedAt"] as string) };
};

/** Inserts an import and its rows. */
export async function importsInsert(sql: SqlClient, p: { record: ImportRecord; rows: readonly ImportRow[] }): Promise<void> {
  const r = p.record;
  await sql`insert into session_imports (workspace_id, id, project_id, parser, status, version, doc) values (${r.workspaceId}, ${r.id}, ${r.projectId}, ${r.parser}, ${r.status}, ${r.version}, ${docOf(sql, r)}::jsonb)`;
  for (let i = 0; i < p.rows.length; i += 500) {
    const chunk = p.rows.slice(i, i + 500).map((row) => ({ workspace_id: row.workspaceId, import_id: row.importId, row_number: row.rowNumber, status: row.status, doc: JSON.parse(JSON.stringify(row)) as postgres.JSONValue }));
    await sql`insert into session_import_rows ${sql(chunk as never, "workspace_id", "import_id", "row_number", "status", "doc")}`;
  }
}

/** The import, or null. */
export async function importsFind(sql: SqlClient, p: { workspaceId: string; id: string }): Promise<ImportRecord | null> {
  const [row] = await sql<{ doc: unknown }[]>`select doc from session_imports where workspace_id = ${p.workspaceId} and id = ${p.id}`;
  return row ? reviveImport(row.doc) : null;
}

/** Replaces an import under compare-and-set on version. */
export async function importsReplace(sql: SqlClient, p: { record: ImportRecord; expectedVersion: number }): Promise<ReplaceResult> {
  const r = p.record;
  const rows = await sql`update session_imports set status = ${r.status}, version = ${r.version}, doc = ${docOf(sql, r)}::jsonb where workspace_id = ${r.workspaceId} and id = ${r.id} and version = ${p.expectedVersion} returning id`;
  return rows.length > 0 ? { kind: "replaced" } : { kind: "conflict" };
}

/** A page of a project's imports, newest first. */
export async function importsList(sql: SqlClient, p: { workspaceId: string; projectId: string; status: string | null; parser: string | null; offset: number; limit: number }): Promise<ImportRecord[]> {
  const rows = await sql<{ doc: unknown }[]>`
    select doc from session_imports
    where workspace_id = ${p.workspaceId} and project_id = ${p.projectId} and (${p.status}::text is null or status = ${p.status}) and (${p.parser}::text is null or parser = ${p.parser})
    order by id desc offset ${p.offset} limit ${p.limit + 1}`;
  return rows.map((r) => reviveImport(r.doc));
}

/** An import's rows by number. */
export async function importRowsList(sql: SqlClient, p: { workspaceId: string; importId: string; status: string | null; offset: number; limit: number | null }): Promise<ImportRow[]> {
  const rows = await sql<{ doc: ImportRow }[]>`
    select doc from session_import_rows
    where workspace_id = ${p.workspaceId} and import_id = ${p.importId} and (${p.status}::text is null or status = ${p.status})
    order by row_number offset ${p.offset} ${p.limit === null ? sql`` : sql`limit ${p.limit + 1}`}`;
  return rows.map((r) => r.doc);
}

/** Replaces rows (status and document). */
export async function importRowsUpdate(sql: SqlClient, p: { rows: readonly ImportRow[] }): Promise<void> {
  for (let i = 0; i < p.rows.length; i += 500) {
    const chunk = p.rows.slice(i, i + 500).map((row) => [row.workspaceId, row.importId, row.rowNumber, row.status, JSON.stringify(row)]);
    await sql`
      update session_import_rows r set status = v.status, doc = v.doc::jsonb
      from (values ${sql(chunk as never)}) as v(workspace_id, import_id, row_number, status, doc)
      where r.workspace_id = v.workspace_id and r.import_id = v.import_id and r.row_number = v.row_number::int`;
  }
}

/** Which fingerprints a project's target has, with their records. */
export async function importFingerprintsFind(sql: SqlClient, p: { workspaceId: string; projectId: string; target: string; fingerprints: readonly string[] }): Promise<Map<string, string>> {
  const rows = await sql<{ fingerprint: string; record_id: string }[]>`
    select fingerprint, record_id from session_import_fingerprints
    where workspace_id = ${p.workspaceId} and project_id = ${p.projectId} and target = ${p.target} and fingerprint = any(${[...p.fingerprints]}::text[])`;
  return new Map(rows.map((r) => [r.fingerprint, r.record_id]));
}

/** Keeps a fingerprint unless the project's target has it. */
export async function importFingerprintsAdd(sql: SqlClient, p: { workspaceId: string; projectId: string; target: string; fingerprint: string; recordId: string; importId: string; at: Date }): Promise<{ kind: "added" } | { kind: "taken"; recordId: string }> {
  const rows = await sql`
    insert into session_import_fingerprints (workspace_id, project_id, target, fingerprint, record_id, import_id, created_at)
    values (${p.workspaceId}, ${p.projectId}, ${p.target}, ${p.fingerprint}, ${p.recordId}, ${p.importId}, ${p.at})
    on conflict do nothing returning record_id`;
  if (rows.length > 0) return { kind: "added" };
  const [holder] = await sql<{ record_id: string }[]>`select record_id from session_import_fingerprints where workspace_id = ${p.workspaceId} and project_id = ${p.projectId} and target = ${p.target} and fingerprint = ${p.fingerprint}`;
  return { kind: "taken", recordId: holder?.record_id ?? "" };
}
