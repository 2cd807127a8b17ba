import type { CandidateFilters, CandidateStatus, Detector, Lesson, LessonCandidate, LessonFilters, LessonObservation, LessonSort, LessonStatus, ReplaceResult, Rule, RuleFilters } from "@agentq/core";
import { CANDIDATE_STATUSES, DETECTORS, LESSON_STATUSES } from "@agentq/core";
import type { SqlClient } from "../sql-client.ts";
import { docOf } from "./json.ts";

// Lessons, observations, lesson candidates and rules: each row holds the record in `doc` and the
// columns the queries filter, order and keep unique (schema/learning.ts).

type DocRow<T> = { doc: T };

/** A record as stored in `doc`: JSON, dates as ISO text. */

function revive<T>(doc: unknown, dates: readonly string[]): T {
  const out = { ...(doc as Record<string, unknown>) };
  for (const k of dates) out[k] = out[k] === null || out[k] === undefined ? null : new Date(out[k] as string);
  return out as T;
}

const LESSON_DATES = ["firstObservedAt", "lastObservedAt", "deletedAt", "createdAt", "updatedAt"];
const toLesson = (r: DocRow<unknown>) => revive<Lesson>(r.doc, LESSON_DATES);
const toObservation = (r: DocRow<unknown>) => revive<LessonObservation>(r.doc, ["at"]);
const toCandidate = (r: DocRow<unknown>) => revive<LessonCandidate>(r.doc, ["createdAt", "updatedAt"]);
const toRule = (r: DocRow<unknown>) => revive<Rule>(r.doc, ["archivedAt", "createdAt", "updatedAt"]);

// ---- lessons ------------------------------------------------------------------------------

/** Inserts a lesson unless a lesson of the project that is not deleted holds its slug. */
export async function lessonsInsert(sql: SqlClient, p: { lesson: Lesson }): Promise<{ kind: "created" } | { kind: "slug_taken"; existingId: string }> {
  const l = p.lesson;
  const rows = await sql`
    insert into lessons (workspace_id, id, project_id, slug, status, tags, observation_count, last_observed_at, deleted_at, version, doc)
    values (${l.workspaceId}, ${l.id}, ${l.projectId}, ${l.slug}, ${l.status}, ${l.tags}::text[], ${l.observationCount}, ${l.lastObservedAt}, ${l.deletedAt}, ${l.version}, ${docOf(sql, l)}::jsonb)
    on conflict (workspace_id, project_id, slug) where deleted_at is null do nothing
    returning id`;
  if (rows.length > 0) return { kind: "created" };
  const [holder] = await sql<{ id: string }[]>`select id from lessons where workspace_id = ${l.workspaceId} and project_id = ${l.projectId} and slug = ${l.slug} and deleted_at is null`;
  return { kind: "slug_taken", existingId: holder?.id ?? "" };
}

/** The lesson (deleted too), or null. */
export async function lessonsFind(sql: SqlClient, p: { workspaceId: string; id: string }): Promise<Lesson | null> {
  const [row] = await sql<DocRow<unknown>[]>`select doc from lessons where workspace_id = ${p.workspaceId} and id = ${p.id}`;
  return row ? toLesson(row) : null;
}

/** The project's lesson with that slug that is not deleted, or null. */
export async function lessonsFindBySlug(sql: SqlClient, p: { workspaceId: string; projectId: string; slug: string }): Promise<Lesson | null> {
  const [row] = await sql<DocRow<unknown>[]>`select doc from lessons where workspace_id = ${p.workspaceId} and project_id = ${p.projectId} and slug = ${p.slug} and deleted_at is null`;
  return row ? toLesson(row) : null;
}

/** Replaces a lesson under compare-and-set on version. */
export async function lessonsReplace(sql: SqlClient, p: { lesson: Lesson; expectedVersion: number }): Promise<ReplaceResult> {
  const l = p.lesson;
  const rows = await sql`
    update lessons set status = ${l.status}, tags = ${l.tags}::text[], observation_count = ${l.observationCount}, last_observed_at = ${l.lastObservedAt}, deleted_at = ${l.deletedAt}, version = ${l.version}, doc = ${docOf(sql, l)}::jsonb
    where workspace_id = ${l.workspaceId} and id = ${l.id} and version = ${p.expectedVersion}
    returning id`;
  return rows.length > 0 ? { kind: "replaced" } : { kind: "conflict" };
}

/** A page of a project's lessons that are not deleted, filtered and ordered. */
export async function lessonsList(sql: SqlClient, p: { workspaceId: string; projectId: string; filters: LessonFilters; sort: LessonSort; offset: number; limit: number }): Promise<Lesson[]> {
  const f = p.filters;
  const order = p.sort === "observation_count" ? sql`observation_count desc, id asc` : sql`last_observed_at desc nulls last, id asc`;
  const rows = await sql<DocRow<unknown>[]>`
    select doc from lessons
    where workspace_id = ${p.workspaceId} and project_id = ${p.projectId} and deleted_at is null
      and (${f.status}::text is null or status = ${f.status})
      and (${f.tag}::text is null or ${f.tag} = any(tags))
      and (${f.q}::text is null or search_vector @@ websearch_to_tsquery('english', ${f.q}))
    order by ${order}
    offset ${p.offset} limit ${p.limit + 1}`;
  return rows.map(toLesson);
}

/** Appends an observation. */
export async function lessonObservationsInsert(sql: SqlClient, p: { observation: LessonObservation }): Promise<void> {
  const o = p.observation;
  await sql`insert into lesson_observations (workspace_id, id, lesson_id, build_session_id, at, doc) values (${o.workspaceId}, ${o.id}, ${o.lessonId}, ${o.buildSessionId}, ${o.at}, ${docOf(sql, o)}::jsonb)`;
}

/** A lesson's newest observations, newest first. */
export async function lessonObservationsList(sql: SqlClient, p: { workspaceId: string; lessonId: string; limit: number }): Promise<LessonObservation[]> {
  const rows = await sql<DocRow<unknown>[]>`select doc from lesson_observations where workspace_id = ${p.workspaceId} and lesson_id = ${p.lessonId} order by at desc, id desc limit ${p.limit}`;
  return rows.map(toObservation);
}

/** Distinct sessions among a lesson's observations and `plus`. */
export async function lessonObservationsDistinctSessions(sql: SqlClient, p: { workspaceId: string; lessonId: string; plus: readonly string[] }): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(distinct s)::int as n from (
      select build_session_id as s from lesson_observations where workspace_id = ${p.workspaceId} and lesson_id = ${p.lessonId} and build_session_id is not null
      union all select unnest(${[...p.plus]}::text[])
    ) x`;
  return row?.n ?? 0;
}

/** Lessons of a project that are not deleted, by status. */
export async function lessonsCountByStatus(sql: SqlClient, p: { workspaceId: string; projectId: string }): Promise<Record<LessonStatus, number>> {
  const rows = await sql<{ status: LessonStatus; n: number }[]>`select status, count(*)::int as n from lessons where workspace_id = ${p.workspaceId} and project_id = ${p.projectId} and deleted_at is null group by status`;
  const out = Object.fromEntries(LESSON_STATUSES.map((s) => [s, 0])) as Record<LessonStatus, number>;
  for (const r of rows) out[r.status] = r.n;
  return out;
}

// ---- candidates ---------------------------------------------------------------------------

/** Inserts a candidate unless a pending candidate of the project has its fingerprint. */
export async function candidatesInsert(sql: SqlClient, p: { candidate: LessonCandidate }): Promise<{ kind: "created" } | { kind: "fingerprint_taken"; existingId: string }> {
  const c = p.candidate;
  const rows = await sql`
    insert into lesson_candidates (workspace_id, id, project_id, fingerprint, detector, status, score, ready, version, doc)
    values (${c.workspaceId}, ${c.id}, ${c.projectId}, ${c.fingerprint}, ${c.detector}, ${c.status}, ${c.score}, ${c.ready}, ${c.version}, ${docOf(sql, c)}::jsonb)
    on conflict (workspace_id, project_id, fingerprint) where status = 'pending' do nothing
    returning id`;
  if (rows.length > 0) return { kind: "created" };
  const [holder] = await sql<{ id: string }[]>`select id from lesson_candidates where workspace_id = ${c.workspaceId} and project_id = ${c.projectId} and fingerprint = ${c.fingerprint} and status = 'pending'`;
  return { kind: "fingerprint_taken", existingId: holder?.id ?? "" };
}

/** The candidate, or null. */
export async function candidatesFind(sql: SqlClient, p: { workspaceId: string; id: string }): Promise<LessonCandidate | null> {
  const [row] = await sql<DocRow<unknown>[]>`select doc from lesson_candidates where workspace_id = ${p.workspaceId} and id = ${p.id}`;
  return row ? toCandidate(row) : null;
}

/** Replaces a candidate under compare-and-set on version. */
export async function candidatesReplace(sql: SqlClient, p: { candidate: LessonCandidate; expectedVersion: number }): Promise<ReplaceResult> {
  const c = p.candidate;
  const rows = await sql`
    update lesson_candidates set status = ${c.status}, score = ${c.score}, ready = ${c.ready}, version = ${c.version}, doc = ${docOf(sql, c)}::jsonb
    where workspace_id = ${c.workspaceId} and id = ${c.id} and version = ${p.expectedVersion}
    returning id`;
  return rows.length > 0 ? { kind: "replaced" } : { kind: "conflict" };
}

/** A page of a project's candidates, by score descending then id. */
export async function candidatesList(sql: SqlClient, p: { workspaceId: string; projectId: string; filters: CandidateFilters; offset: number; limit: number }): Promise<LessonCandidate[]> {
  const f = p.filters;
  const rows = await sql<DocRow<unknown>[]>`
    select doc from lesson_candidates
    where workspace_id = ${p.workspaceId} and project_id = ${p.projectId}
      and (${f.status}::text is null or status = ${f.status})
      and (${f.detector}::text is null or detector = ${f.detector})
      and (${f.ready}::boolean is null or ready = ${f.ready})
      and (${f.minScore}::int is null or score >= ${f.minScore})
    order by score desc, id asc
    offset ${p.offset} limit ${p.limit + 1}`;
  return rows.map(toCandidate);
}

/** Every candidate of a project in one of `statuses`, oldest first. */
export async function candidatesAll(sql: SqlClient, p: { workspaceId: string; projectId: string; statuses: readonly CandidateStatus[]; limit: number }): Promise<LessonCandidate[]> {
  const rows = await sql<DocRow<unknown>[]>`select doc from lesson_candidates where workspace_id = ${p.workspaceId} and project_id = ${p.projectId} and status = any(${[...p.statuses]}::text[]) order by id limit ${p.limit}`;
  return rows.map(toCandidate);
}

/** Every evidence key `detector|kind|ref_id` of a project's candidates. */
export async function candidatesEvidenceKeys(sql: SqlClient, p: { workspaceId: string; projectId: string }): Promise<string[]> {
  const rows = await sql<{ k: string }[]>`
    select c.detector || '|' || (e->>'kind') || '|' || (e->>'ref_id') as k
    from lesson_candidates c, jsonb_array_elements(c.doc->'evidence') e
    where c.workspace_id = ${p.workspaceId} and c.project_id = ${p.projectId}`;
  return rows.map((r) => r.k);
}

/** Candidates by status, pending ones by detector. */
export async function candidatesCounts(sql: SqlClient, p: { workspaceId: string; projectId: string }): Promise<{ byStatus: Record<CandidateStatus, number>; byDetector: Record<Detector, number> }> {
  const rows = await sql<{ status: CandidateStatus; detector: Detector; n: number }[]>`select status, detector, count(*)::int as n from lesson_candidates where workspace_id = ${p.workspaceId} and project_id = ${p.projectId} group by status, detector`;
  const byStatus = Object.fromEntries(CANDIDATE_STATUSES.map((s) => [s, 0])) as Record<CandidateStatus, number>;
  const byDetector = Object.fromEntries(DETECTORS.map((d) => [d, 0])) as Record<Detector, number>;
  for (const r of rows) {
    byStatus[r.status] += r.n;
    if (r.status === "pending") byDetector[r.detector] += r.n;
  }
  return { byStatus, byDetector };
}

// ---- rules --------------------------------------------------------------------------------

/** Inserts a rule unless an active rule of the project holds its slug. */
export async function rulesInsert(sql: SqlClient, p: { rule: Rule }): Promise<{ kind: "created" } | { kind: "slug_taken"; existingId: string }> {
  const r = p.rule;
  const rows = await sql`
    insert into rules (workspace_id, id, project_id, slug, status, level, source_lesson_id, languages, version, doc)
    values (${r.workspaceId}, ${r.id}, ${r.projectId}, ${r.slug}, ${r.status}, ${r.level}, ${r.sourceLessonId}, ${r.triggers.languages}::text[], ${r.version}, ${docOf(sql, r)}::jsonb)
    on conflict (workspace_id, project_id, slug) where status = 'active' do nothing
    returning id`;
  if (rows.length > 0) return { kind: "created" };
  const [holder] = await sql<{ id: string }[]>`select id from rules where workspace_id = ${r.workspaceId} and project_id = ${r.projectId} and slug = ${r.slug} and status = 'active'`;
  return { kind: "slug_taken", existingId: holder?.id ?? "" };
}

/** The rule, or null. */
export async function rulesFind(sql: SqlClient, p: { workspaceId: string; id: string }): Promise<Rule | null> {
  const [row] = await sql<DocRow<unknown>[]>`select doc from rules where workspace_id = ${p.workspaceId} and id = ${p.id}`;
  return row ? toRule(row) : null;
}

/** The project's active rule with that slug, else its newest archived one. */
export async function rulesFindBySlug(sql: SqlClient, p: { workspaceId: string; projectId: string; slug: string }): Promise<Rule | null> {
  const [row] = await sql<DocRow<unknown>[]>`select doc from rules where workspace_id = ${p.workspaceId} and project_id = ${p.projectId} and slug = ${p.slug} order by (status = 'active') desc, id desc limit 1`;
  return row ? toRule(row) : null;
}

/** Replaces an active rule under compare-and-set on version (archived rows never change). */
export async function rulesReplace(sql: SqlClient, p: { rule: Rule; expectedVersion: number }): Promise<ReplaceResult> {
  const r = p.rule;
  const rows = await sql`
    update rules set status = ${r.status}, version = ${r.version}, doc = ${docOf(sql, r)}::jsonb
    where workspace_id = ${r.workspaceId} and id = ${r.id} and version = ${p.expectedVersion} and status = 'active'
    returning id`;
  return rows.length > 0 ? { kind: "replaced" } : { kind: "conflict" };
}

/** A project's rules, filtered, by slug then id; `limit` null: all from `offset`. */
export async function rulesList(sql: SqlClient, p: { workspaceId: string; projectId: string; filters: RuleFilters; offset: number; limit: number | null }): Promise<Rule[]> {
  const f = p.filters;
  const rows = await sql<DocRow<unknown>[]>`
    select doc from rules
    where workspace_id = ${p.workspaceId} and project_id = ${p.projectId}
      and (${f.status}::text is null or status = ${f.status})
      and (${f.level}::text is null or level = ${f.level})
      and (${f.language}::text is null or ${f.language} = any(languages))
      and (${f.sourceLessonId}::text is null or source_lesson_id = ${f.sourceLessonId})
    order by slug, id
    offset ${p.offset} ${p.limit === null ? sql`` : sql`limit ${p.limit + 1}`}`;
  return rows.map(toRule);
}

/** Active rules derived from a lesson. */
export async function rulesCountActiveForLesson(sql: SqlClient, p: { workspaceId: string; lessonId: string }): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from rules where workspace_id = ${p.workspaceId} and source_lesson_id = ${p.lessonId} and status = 'active'`;
  return row?.n ?? 0;
}
