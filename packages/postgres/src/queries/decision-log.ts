import type { Alternative, DecisionAuthor, DecisionEntry, DecisionListFilters, DecisionRow, DecisionSearchHit, SourceAmendment, SourceRef } from "@agentq/core";
import type { SqlClient } from "../sql-client.ts";
import { json } from "./json.ts";

interface EntryRow {
  workspace_id: string;
  id: string;
  project_id: string;
  number: number;
  kind: DecisionEntry["kind"];
  title: string;
  context_md: string;
  decision_md: string;
  rationale_md: string;
  alternatives: Alternative[];
  consequences: { good: string[]; bad: string[] };
  tags: string[];
  files: string[];
  build_session_id: string | null;
  author_account_id: string;
  author_name: string;
  decided_at: Date;
  recorded_at: Date;
  supersedes_id: string | null;
  chain_root_id: string;
  source: SourceRef;
  superseded_by_id: string | null;
}

const COLUMNS = [
  "workspace_id", "id", "project_id", "number", "kind", "title", "context_md", "decision_md", "rationale_md", "alternatives", "consequences", "tags", "files",
  "build_session_id", "author_account_id", "author_name", "decided_at", "recorded_at", "supersedes_id", "chain_root_id", "source",
];

function toRow(r: EntryRow): DecisionRow {
  return {
    entry: {
      workspaceId: r.workspace_id,
      id: r.id,
      projectId: r.project_id,
      number: r.number,
      kind: r.kind,
      title: r.title,
      contextMd: r.context_md,
      decisionMd: r.decision_md,
      rationaleMd: r.rationale_md,
      alternatives: r.alternatives,
      consequences: r.consequences,
      tags: r.tags,
      files: r.files,
      buildSessionId: r.build_session_id,
      createdBy: { aiAccountId: r.author_account_id, friendlyName: r.author_name },
      decidedAt: r.decided_at,
      recordedAt: r.recorded_at,
      supersedesId: r.supersedes_id,
      chainRootId: r.chain_root_id,
      source: r.source,
    },
    supersededById: r.superseded_by_id,
  };
}


/** `e.*` plus the id of the entry's successor (`decision_log_supersedes_key`). */
const selectEntries = (sql: SqlClient) => sql`
  select ${sql(COLUMNS.map((c) => `e.${c}`))}, s.id as superseded_by_id
  from decision_log_entries e
  left join decision_log_entries s on s.workspace_id = e.workspace_id and s.supersedes_id = e.id`;

/**
 * Appends an entry. A correction whose `supersedes_id` already has a successor inserts nothing
 * (`on conflict` on `decision_log_supersedes_key`: of two concurrent corrections of one tip, the
 * second waits for the first and then inserts nothing) and returns the chain's tip.
 */
export async function decisionLogAppend(sql: SqlClient, p: { entry: DecisionEntry }): Promise<{ kind: "appended" } | { kind: "not_tip"; currentId: string }> {
  const e = p.entry;
  const rows = await sql<{ id: string }[]>`
    insert into decision_log_entries (workspace_id, id, project_id, number, kind, title, context_md, decision_md, rationale_md, alternatives, consequences, tags, files,
      build_session_id, author_account_id, author_name, decided_at, recorded_at, supersedes_id, chain_root_id, source)
    values (${e.workspaceId}, ${e.id}, ${e.projectId}, ${e.number}, ${e.kind}, ${e.title}, ${e.contextMd}, ${e.decisionMd}, ${e.rationaleMd},
      ${json(sql, e.alternatives)}::jsonb, ${json(sql, e.consequences)}::jsonb, ${e.tags}::text[], ${e.files}::text[], ${e.buildSessionId}, ${e.createdBy.aiAccountId},
      ${e.createdBy.friendlyName}, ${e.decidedAt}, ${e.recordedAt}, ${e.supersedesId}, ${e.chainRootId}, ${json(sql, e.source)}::jsonb)
    on conflict (workspace_id, supersedes_id) do nothing
    returning id`;
  if (rows.length > 0) return { kind: "appended" };
  const [tip] = await sql<{ id: string }[]>`
    select e.id from decision_log_entries e
    where e.workspace_id = ${e.workspaceId} and e.chain_root_id = ${e.chainRootId}
      and not exists (select 1 from decision_log_entries s where s.workspace_id = e.workspace_id and s.supersedes_id = e.id)`;
  return { kind: "not_tip", currentId: tip?.id ?? "" };
}

/** The entry with its successor, or null. */
export async function decisionLogFind(sql: SqlClient, p: { workspaceId: string; id: string }): Promise<DecisionRow | null> {
  const [row] = await sql<EntryRow[]>`${selectEntries(sql)} where e.workspace_id = ${p.workspaceId} and e.id = ${p.id}`;
  return row ? toRow(row) : null;
}

/** Every entry of a chain, oldest first. */
export async function decisionLogChain(sql: SqlClient, p: { workspaceId: string; chainRootId: string }): Promise<DecisionRow[]> {
  const rows = await sql<EntryRow[]>`${selectEntries(sql)} where e.workspace_id = ${p.workspaceId} and e.chain_root_id = ${p.chainRootId} order by e.id`;
  return rows.map(toRow);
}

/** A page of a project's entries, newest first; at most `limit + 1`. */
export async function decisionLogList(sql: SqlClient, p: { workspaceId: string; projectId: string; filters: DecisionListFilters; after: string | null; limit: number }): Promise<DecisionRow[]> {
  const f = p.filters;
  const rows = await sql<EntryRow[]>`
    ${selectEntries(sql)}
    where e.workspace_id = ${p.workspaceId} and e.project_id = ${p.projectId}
      and (${p.after}::text is null or e.id < ${p.after})
      and (${f.status}::text is null or (${f.status} = 'active') = (s.id is null))
      and (${f.kind}::text is null or e.kind = ${f.kind})
      and (${f.tag}::text is null or ${f.tag} = any(e.tags))
      and (${f.authorId}::text is null or e.author_account_id = ${f.authorId})
      and (${f.buildSessionId}::text is null or e.build_session_id = ${f.buildSessionId})
      and (${f.since}::timestamptz is null or e.decided_at >= ${f.since})
      and (${f.until}::timestamptz is null or e.decided_at < ${f.until})
      and (${f.file}::text is null or ${f.file} = any(e.files))
    order by e.id desc
    limit ${p.limit + 1}`;
  return rows.map(toRow);
}

/**
 * Full-text search (`search_vector`, GIN-indexed; `websearch_to_tsquery`, English stemming),
 * ranked by `ts_rank_cd`, with a `ts_headline` snippet of title and decision; at most `limit + 1`
 * from `offset`.
 */
export async function decisionLogSearch(sql: SqlClient, p: { workspaceId: string; projectId: string; q: string; offset: number; limit: number }): Promise<DecisionSearchHit[]> {
  const rows = await sql<(EntryRow & { rank: number; snippet: string })[]>`
    with q as (select websearch_to_tsquery('english', ${p.q}) as query)
    select ${sql(COLUMNS.map((c) => `e.${c}`))}, s.id as superseded_by_id,
      ts_rank_cd(e.search_vector, q.query)::float8 as rank,
      ts_headline('english', e.title || '. ' || e.decision_md, q.query, 'StartSel=**, StopSel=**, MaxWords=24, MinWords=8, MaxFragments=2') as snippet
    from decision_log_entries e
    cross join q
    left join decision_log_entries s on s.workspace_id = e.workspace_id and s.supersedes_id = e.id
    where e.workspace_id = ${p.workspaceId} and e.project_id = ${p.projectId} and e.search_vector @@ q.query
    order by rank desc, e.id desc
    offset ${p.offset} limit ${p.limit + 1}`;
  return rows.map((r) => ({ row: toRow(r), rank: r.rank, snippet: r.snippet }));
}

/** Per-author figures of a project's log (the latest friendly name each author recorded under). */
export async function decisionLogAuthors(sql: SqlClient, p: { workspaceId: string; projectId: string }): Promise<DecisionAuthor[]> {
  const rows = await sql<{ ai_account_id: string; friendly_name: string; entries: number; corrections: number; first_at: Date; last_at: Date }[]>`
    select author_account_id as ai_account_id,
      (array_agg(author_name order by id desc))[1] as friendly_name,
      count(*)::int as entries,
      count(*) filter (where kind = 'correction')::int as corrections,
      min(recorded_at) as first_at, max(recorded_at) as last_at
    from decision_log_entries
    where workspace_id = ${p.workspaceId} and project_id = ${p.projectId}
    group by author_account_id
    order by entries desc, author_account_id`;
  return rows.map((r) => ({ aiAccountId: r.ai_account_id, friendlyName: r.friendly_name, entries: r.entries, corrections: r.corrections, firstAt: r.first_at, lastAt: r.last_at }));
}

/** Entries per UTC day of decided_at in [since, until). */
export async function decisionLogCountByDay(sql: SqlClient, p: { workspaceId: string; projectId: string; since: Date; until: Date }): Promise<{ day: string; count: number }[]> {
  return sql<{ day: string; count: number }[]>`
    select to_char(decided_at at time zone 'UTC', 'YYYY-MM-DD') as day, count(*)::int as count
    from decision_log_entries
    where workspace_id = ${p.workspaceId} and project_id = ${p.projectId} and decided_at >= ${p.since} and decided_at < ${p.until}
    group by 1 order by 1`;
}

/** Entries of a project. */
export async function decisionLogCount(sql: SqlClient, p: { workspaceId: string; projectId: string }): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from decision_log_entries where workspace_id = ${p.workspaceId} and project_id = ${p.projectId}`;
  return row?.n ?? 0;
}

/** Appends a source amendment. */
export async function decisionSourceAmendmentsInsert(sql: SqlClient, p: { amendment: SourceAmendment }): Promise<void> {
  const a = p.amendment;
  await sql`
    insert into decision_source_amendments (workspace_id, id, entry_id, source, reason, at, by_account_id, by_name)
    values (${a.workspaceId}, ${a.id}, ${a.entryId}, ${json(sql, a.source)}::jsonb, ${a.reason}, ${a.at}, ${a.by.aiAccountId}, ${a.by.friendlyName})`;
}

/** An entry's amendments, oldest first. */
export async function decisionSourceAmendmentsList(sql: SqlClient, p: { workspaceId: string; entryId: string }): Promise<SourceAmendment[]> {
  const rows = await sql<{ workspace_id: string; id: string; entry_id: string; source: SourceRef; reason: string; at: Date; by_account_id: string; by_name: string }[]>`
    select workspace_id, id, entry_id, source, reason, at, by_account_id, by_name from decision_source_amendments
    where workspace_id = ${p.workspaceId} and entry_id = ${p.entryId} order by id`;
  return rows.map((r) => ({ workspaceId: r.workspace_id, id: r.id, entryId: r.entry_id, source: r.source, reason: r.reason, at: r.at, by: { aiAccountId: r.by_account_id, friendlyName: r.by_name } }));
}

/** Entries recorded in one of the given build sessions, by kind. */
export async function decisionLogCountForSessions(sql: SqlClient, p: { workspaceId: string; buildSessionIds: readonly string[] }): Promise<{ decisions: number; corrections: number }> {
  const [row] = await sql<{ decisions: number; corrections: number }[]>`
    select count(*) filter (where kind = 'decision')::int as decisions, count(*) filter (where kind = 'correction')::int as corrections
    from decision_log_entries where workspace_id = ${p.workspaceId} and build_session_id = any(${[...p.buildSessionIds]}::text[])`;
  return row ?? { decisions: 0, corrections: 0 };
}
