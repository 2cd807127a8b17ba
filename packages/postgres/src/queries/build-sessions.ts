import type { BuildSession, BuildSessionFilters, CurrentState, PullRequest, SessionClient } from "@agentq/core";
import type { SqlClient } from "../sql-client.ts";
import { UndoAndConflict, atomically } from "./atomically.ts";
import { json } from "./json.ts";

interface StoredLeadLine {
  text: string;
  added_at: string;
  added_by: { ai_account_id: string; friendly_name: string };
}

interface SessionRow {
  workspace_id: string;
  id: string;
  project_id: string;
  ai_account_id: string;
  ai_account_name: string;
  title: string;
  goal: string;
  client: SessionClient | null;
  state: BuildSession["state"];
  end_reason: BuildSession["endReason"];
  started_at: Date;
  last_ping_at: Date;
  ended_at: Date | null;
  ping_count: number;
  active_seconds: number;
  previous_session_id: string | null;
  next_session_id: string | null;
  chain_root_id: string;
  lead_lines: StoredLeadLine[];
  summary_md: string;
  learnings: string[];
  current_state: CurrentState;
  current_state_version: number;
  prs: PullRequest[];
  version: number;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = [
  "workspace_id", "id", "project_id", "ai_account_id", "ai_account_name", "title", "goal", "client", "state", "end_reason", "started_at", "last_ping_at", "ended_at", "ping_count",
  "active_seconds", "previous_session_id", "next_session_id", "chain_root_id", "lead_lines", "summary_md", "learnings", "current_state", "current_state_version", "prs", "version",
  "created_at", "updated_at",
];

function toSession(r: SessionRow): BuildSession {
  return {
    workspaceId: r.workspace_id,
    id: r.id,
    projectId: r.project_id,
    title: r.title,
    goal: r.goal,
    client: r.client,
    state: r.state,
    endReason: r.end_reason,
    startedAt: r.started_at,
    lastPingAt: r.last_ping_at,
    endedAt: r.ended_at,
    pingCount: r.ping_count,
    activeSeconds: r.active_seconds,
    previousSessionId: r.previous_session_id,
    nextSessionId: r.next_session_id,
    chainRootId: r.chain_root_id,
    leadLines: r.lead_lines.map((l) => ({ text: l.text, addedAt: new Date(l.added_at), addedBy: { aiAccountId: l.added_by.ai_account_id, friendlyName: l.added_by.friendly_name } })),
    summaryMd: r.summary_md,
    learnings: r.learnings,
    currentState: r.current_state,
    currentStateVersion: r.current_state_version,
    prs: r.prs,
    version: r.version,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    createdBy: { aiAccountId: r.ai_account_id, friendlyName: r.ai_account_name },
  };
}


function values(sql: SqlClient, s: BuildSession) {
  const leadLines: StoredLeadLine[] = s.leadLines.map((l) => ({ text: l.text, added_at: l.addedAt.toISOString(), added_by: { ai_account_id: l.addedBy.aiAccountId, friendly_name: l.addedBy.friendlyName } }));
  return sql`
    ${s.workspaceId}, ${s.id}, ${s.projectId}, ${s.createdBy.aiAccountId}, ${s.createdBy.friendlyName}, ${s.title}, ${s.goal}, ${s.client === null ? null : json(sql, s.client)}::jsonb,
    ${s.state}, ${s.endReason}, ${s.startedAt}, ${s.lastPingAt}, ${s.endedAt}, ${s.pingCount}, ${s.activeSeconds}, ${s.previousSessionId}, ${s.nextSessionId}, ${s.chainRootId},
    ${json(sql, leadLines)}::jsonb, ${s.summaryMd}, ${json(sql, s.learnings)}::jsonb, ${json(sql, s.currentState)}::jsonb, ${s.currentStateVersion}, ${json(sql, s.prs)}::jsonb,
    ${s.version}, ${s.createdAt}, ${s.updatedAt}`;
}

/** Inserts a session. */
export async function buildSessionsInsert(sql: SqlClient, p: { session: BuildSession }): Promise<void> {
  await sql`insert into build_sessions (${sql(COLUMNS)}) values (${values(sql, p.session)})`;
}

/** The session, or null. */
export async function buildSessionsFind(sql: SqlClient, p: { workspaceId: string; id: string }): Promise<BuildSession | null> {
  const [row] = await sql<SessionRow[]>`select ${sql(COLUMNS)} from build_sessions where workspace_id = ${p.workspaceId} and id = ${p.id}`;
  return row ? toSession(row) : null;
}

/** Replaces every column of a session whose stored version is `expectedVersion` (compare-and-set; the row lock serializes writers). */
export async function buildSessionsReplace(sql: SqlClient, p: { session: BuildSession; expectedVersion: number }): Promise<{ kind: "replaced" } | { kind: "conflict" }> {
  const rows = await sql`
    update build_sessions set (${sql(COLUMNS)}) = (${values(sql, p.session)})
    where workspace_id = ${p.session.workspaceId} and id = ${p.session.id} and version = ${p.expectedVersion}
    returning id`;
  return rows.length > 0 ? { kind: "replaced" } : { kind: "conflict" };
}

/**
 * Ends the predecessor (compare-and-set) and inserts the successor as one unit; the insert does
 * nothing when the predecessor already has a continuation (`build_sessions_previous_key`), and
 * then both writes are undone and the answer is `conflict`.
 */
export async function buildSessionsInsertContinuation(sql: SqlClient, p: { predecessor: BuildSession; expectedVersion: number; successor: BuildSession }): Promise<{ kind: "replaced" } | { kind: "conflict" }> {
  return atomically(sql, async (tx) => {
    const replaced = await buildSessionsReplace(tx, { session: p.predecessor, expectedVersion: p.expectedVersion });
    if (replaced.kind === "conflict") return replaced;
    const inserted = await tx`insert into build_sessions (${tx(COLUMNS)}) values (${values(tx, p.successor)}) on conflict (workspace_id, previous_session_id) do nothing returning id`;
    if (inserted.length === 0) throw new UndoAndConflict();
    return replaced;
  });
}

/** The project's most recently started session other than `excludeId`. */
export async function buildSessionsLatestInProject(sql: SqlClient, p: { workspaceId: string; projectId: string; excludeId: string | null }): Promise<BuildSession | null> {
  const [row] = await sql<SessionRow[]>`
    select ${sql(COLUMNS)} from build_sessions
    where workspace_id = ${p.workspaceId} and project_id = ${p.projectId} and (${p.excludeId}::text is null or id <> ${p.excludeId})
    order by id desc limit 1`;
  return row ? toSession(row) : null;
}

/** The account's latest active session in the project (`build_sessions_active_idx`). */
export async function buildSessionsActiveFor(sql: SqlClient, p: { workspaceId: string; projectId: string; aiAccountId: string }): Promise<BuildSession | null> {
  const [row] = await sql<SessionRow[]>`
    select ${sql(COLUMNS)} from build_sessions
    where workspace_id = ${p.workspaceId} and project_id = ${p.projectId} and ai_account_id = ${p.aiAccountId} and state = 'active'
    order by id desc limit 1`;
  return row ? toSession(row) : null;
}

/** A page of a project's sessions, newest first, filtered; at most `limit + 1`. */
export async function buildSessionsSearch(sql: SqlClient, p: { workspaceId: string; projectId: string; filters: BuildSessionFilters; now: Date; silenceMs: number; after: string | null; limit: number }): Promise<BuildSession[]> {
  const f = p.filters;
  const liveSince = new Date(p.now.getTime() - p.silenceMs);
  const rows = await sql<SessionRow[]>`
    select ${sql(COLUMNS)} from build_sessions
    where workspace_id = ${p.workspaceId} and project_id = ${p.projectId}
      and (${p.after}::text is null or id < ${p.after})
      and (${f.state}::text is null or state = ${f.state})
      and (${f.liveness}::text is null or (state = 'active' and (last_ping_at >= ${liveSince}) = (${f.liveness} = 'live')))
      and (${f.aiAccountId}::text is null or ai_account_id = ${f.aiAccountId})
      and (${f.startedAfter}::timestamptz is null or started_at >= ${f.startedAfter})
      and (${f.startedBefore}::timestamptz is null or started_at < ${f.startedBefore})
      and (${f.hasOpenPr}::boolean is null or (prs @? '$[*] ? (@.state == "open" || @.state == "draft")') = ${f.hasOpenPr})
      and (${f.prUrl}::text is null or prs @> ${json(sql, [{ url: f.prUrl }])}::jsonb)
      and (${f.chainRootId}::text is null or chain_root_id = ${f.chainRootId})
      and (${f.q}::text is null or search_vector @@ websearch_to_tsquery('english', ${f.q}))
    order by id desc
    limit ${p.limit + 1}`;
  return rows.map(toSession);
}

/** Every session of a chain, oldest first. */
export async function buildSessionsChain(sql: SqlClient, p: { workspaceId: string; chainRootId: string }): Promise<BuildSession[]> {
  const rows = await sql<SessionRow[]>`select ${sql(COLUMNS)} from build_sessions where workspace_id = ${p.workspaceId} and chain_root_id = ${p.chainRootId} order by id`;
  return rows.map(toSession);
}

/** Active sessions of a project. */
export async function buildSessionsCountActive(sql: SqlClient, p: { workspaceId: string; projectId: string }): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from build_sessions where workspace_id = ${p.workspaceId} and project_id = ${p.projectId} and state = 'active'`;
  return row?.n ?? 0;
}

/** Sessions of a project changed in [since, until], oldest change first (`build_sessions_updated_idx`). */
export async function buildSessionsTouchedBetween(sql: SqlClient, p: { workspaceId: string; projectId: string; since: Date; until: Date; limit: number }): Promise<BuildSession[]> {
  const rows = await sql<SessionRow[]>`
    select ${sql(COLUMNS)} from build_sessions
    where workspace_id = ${p.workspaceId} and project_id = ${p.projectId} and updated_at >= ${p.since} and updated_at <= ${p.until}
    order by updated_at, id limit ${p.limit}`;
  return rows.map(toSession);
}
