import { Type } from "@sinclair/typebox";
import { malformed } from "../../errors.ts";
import { isUlid } from "../../ids.ts";
import { COUNT_PERIODS, amendDecisionSource, amendmentView, correctDecision, countDecisionsByPeriod, decisionDetail, decisionSummary, decisionView, recordDecision } from "./decision-log.ts";
import { parseEnum, parseTimestamp } from "../conventions/fields.ts";
import { DECISION_KINDS, SOURCE_KINDS, type DecisionListFilters } from "./decision-entry.ts";
import { resolveProject } from "../conventions/resolve-project.ts";
import { defineSessionStateWrite } from "../conventions/define-session-state-write.ts";
import { defineSessionStateRead } from "../conventions/define-session-state-read.ts";
import { keysetPage, offsetPage } from "../../cursors/paged-list.ts";
import { CreatedBySchema, CursorField, IdField, LimitField, MarkdownField, Nullable, PageOf, ProjectIdField, TagsField, Timestamp } from "../conventions/operation-fields.ts";

const SourceInput = Type.Object(
  {
    kind: Type.Union(SOURCE_KINDS.map((k) => Type.Literal(k)), { description: "session, import, pr, commit, url or manual." }),
    ref: Type.String({ minLength: 1, maxLength: 500, description: "What it points at: a PR number, a commit sha, a session id, a file:line ..." }),
    url: Type.Optional(Nullable(Type.String({ maxLength: 2048 }), "An http(s) URL, when there is one.")),
  },
  { additionalProperties: false, description: "Where the decision came from (default manual, ref = your friendly name)." },
);
const SourceSchema = Type.Object({ kind: Type.String(), ref: Type.String(), url: Nullable(Type.String()) });
const AlternativeInput = Type.Object(
  {
    option: Type.String({ minLength: 1, maxLength: 200 }),
    pros: Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 20 })),
    cons: Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 20 })),
    chosen: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
);
const ConsequencesInput = Type.Object({ good: Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 20 })), bad: Type.Optional(Type.Array(Type.String({ maxLength: 500 }), { maxItems: 20 })) }, { additionalProperties: false });
const FilesField = Type.Array(Type.String({ minLength: 1, maxLength: 500 }), { maxItems: 50, description: "Up to 50 relative paths or globs the decision is about." });

const contentFields = {
  context_md: Type.Optional(MarkdownField("The situation that called for a decision.")),
  alternatives: Type.Optional(Type.Array(AlternativeInput, { maxItems: 20, description: "Options weighed: {option, pros[], cons[], chosen}." })),
  consequences: Type.Optional(ConsequencesInput),
  tags: Type.Optional(TagsField()),
  files: Type.Optional(FilesField),
  decided_at: Type.Optional(Type.String({ maxLength: 40, description: "When it was decided, ISO 8601 (default now)." })),
  build_session_id: Type.Optional(IdField("The build session it was decided in (default: your active session in the project, if any).")),
  source: Type.Optional(SourceInput),
};

const DecisionFields = {
  id: Type.String({ description: "ULID of the entry." }),
  project_id: Type.String(),
  number: Type.Integer({ description: "Per project, from 1." }),
  kind: Type.Union([Type.Literal("decision"), Type.Literal("correction")]),
  status: Type.Union([Type.Literal("active"), Type.Literal("superseded")], { description: "superseded once a correction supersedes it (derived on read)." }),
  title: Type.String(),
  context_md: Type.String(),
  decision_md: Type.String(),
  rationale_md: Type.String(),
  alternatives: Type.Array(Type.Object({ option: Type.String(), pros: Type.Array(Type.String()), cons: Type.Array(Type.String()), chosen: Type.Boolean() })),
  consequences: Type.Object({ good: Type.Array(Type.String()), bad: Type.Array(Type.String()) }),
  tags: Type.Array(Type.String()),
  files: Type.Array(Type.String()),
  build_session_id: Nullable(Type.String()),
  author_ai_account_id: Type.String(),
  created_by: CreatedBySchema,
  decided_at: Timestamp(),
  recorded_at: Timestamp(),
  created_at: Timestamp(),
  updated_at: Timestamp("Equal to recorded_at: entries never change."),
  supersedes_id: Nullable(Type.String(), "The entry this correction supersedes (set exactly for corrections)."),
  superseded_by_id: Nullable(Type.String(), "The correction that supersedes this entry, or null."),
  chain_root_id: Type.String({ description: "The first entry of the chain." }),
  source: SourceSchema,
};
const DecisionSchema = Type.Object(DecisionFields, { description: "A decision-log entry (append-only)." });
const AmendmentSchema = Type.Object({ id: Type.String(), source: SourceSchema, reason: Type.String(), at: Timestamp(), by: CreatedBySchema }, { description: "An amendment of an entry's source." });
const DecisionDetailSchema = Type.Object(
  {
    ...DecisionFields,
    source_amendments: Type.Array(AmendmentSchema, { description: "Amendments of the source, oldest first." }),
    chain: Type.Object({ position: Type.Integer(), length: Type.Integer(), tip_id: Type.String(), entry_ids: Type.Array(Type.String()) }, { description: "The entry's place in its correction chain (oldest first)." }),
  },
  { description: "A decision-log entry with its amendments and chain." },
);
const DecisionPath = { decision_id: IdField("ULID of the entry.") };

const recordDecisionOp = defineSessionStateWrite({
  name: "record_decision",
  summary: "Record a decision in the project's append-only decision log (what, why, alternatives, consequences, tags, files).",
  http: { method: "POST", path: "/v1/decision-log" },
  input: Type.Object({
    project_id: ProjectIdField,
    title: Type.String({ minLength: 1, maxLength: 200 }),
    decision_md: MarkdownField("What was decided."),
    rationale_md: Type.Optional(MarkdownField("Why.")),
    ...contentFields,
  }),
  output: DecisionSchema,
  successStatus: 201,
  run: async (deps, ctx, input, stores) => ({ body: decisionView(await recordDecision(deps, stores, ctx, input)) }),
});

const listDecisionsOp = defineSessionStateRead({
  name: "list_decisions",
  summary: "List a project's decision log, newest first; filter by status, kind, tag, author, time (decided_at) or file.",
  http: { path: "/v1/decision-log", query: ["project_id", "status", "kind", "tag", "author", "build_session_id", "since", "until", "file", "limit", "cursor"] },
  input: Type.Object({
    project_id: ProjectIdField,
    status: Type.Optional(Type.String({ description: "active or superseded." })),
    kind: Type.Optional(Type.String({ description: "decision or correction." })),
    tag: Type.Optional(Type.String({ maxLength: 40 })),
    author: Type.Optional(Type.String({ maxLength: 64, description: "ai_account_id of the author." })),
    build_session_id: Type.Optional(IdField("Entries recorded in this build session.")),
    since: Type.Optional(Type.String({ description: "decided_at at or after (ISO 8601)." })),
    until: Type.Optional(Type.String({ description: "decided_at before (ISO 8601)." })),
    file: Type.Optional(Type.String({ maxLength: 500, description: "Entries whose files list this exact path or glob." })),
    limit: LimitField,
    cursor: CursorField,
  }),
  output: PageOf(DecisionSchema, "A page of entries."),
  async handler(deps, ctx, input) {
    const project = await resolveProject(deps.stores, ctx, input.project_id, { forWrite: false });
    if (input.author !== undefined && !isUlid(input.author)) throw malformed("author must be an AI account id (ULID).", { field: "author" });
    const filters: DecisionListFilters = {
      status: parseEnum(input.status, ["active", "superseded"] as const, "status"),
      kind: parseEnum(input.kind, DECISION_KINDS, "kind"),
      tag: input.tag ?? null,
      authorId: input.author ?? null,
      buildSessionId: input.build_session_id ?? null,
      since: parseTimestamp(input.since, "since"),
      until: parseTimestamp(input.until, "until"),
      file: input.file ?? null,
    };
    const cursorFilters = { project: project.id, status: filters.status, kind: filters.kind, tag: filters.tag, author: filters.authorId, session: filters.buildSessionId, since: input.since ?? null, until: input.until ?? null, file: filters.file };
    const body = await keysetPage(deps, ctx, { resource: "decision-log", filters: cursorFilters, limit: input.limit, cursor: input.cursor }, (after, limit) => deps.stores.decisions.list({ workspaceId: project.workspaceId, projectId: project.id, filters, after, limit }), decisionView, (r) => r.entry.id);
    return { body };
  },
});

const searchDecisionsOp = defineSessionStateRead({
  name: "search_decisions",
  summary: "Full-text search of a project's decision log (title, context, decision, rationale, tags), best match first, with a highlighted snippet.",
  http: { path: "/v1/decision-log/search", query: ["project_id", "q", "limit", "cursor"] },
  input: Type.Object({ project_id: ProjectIdField, q: Type.String({ minLength: 1, maxLength: 500, description: "Words to find (web-search syntax: \"quoted phrase\", -excluded, or)." }), limit: LimitField, cursor: CursorField }),
  output: PageOf(Type.Object({ decision: DecisionSchema, rank: Type.Number(), snippet: Type.String({ description: "An excerpt with the matched words between **." }) }), "A page of hits, best first."),
  async handler(deps, ctx, input) {
    const project = await resolveProject(deps.stores, ctx, input.project_id, { forWrite: false });
    const body = await offsetPage(deps, ctx, { resource: "decision-search", filters: { project: project.id, q: input.q }, limit: input.limit, cursor: input.cursor }, (offset, limit) => deps.stores.decisions.search({ workspaceId: project.workspaceId, projectId: project.id, q: input.q, offset, limit }), (h) => ({ decision: decisionView(h.row), rank: h.rank, snippet: h.snippet }));
    return { body };
  },
});

const listDecisionAuthorsOp = defineSessionStateRead({
  name: "list_decision_authors",
  summary: "Who recorded a project's decisions: entries, corrections, first and last recording, per AI account.",
  http: { path: "/v1/decision-log/authors", query: ["project_id"] },
  input: Type.Object({ project_id: ProjectIdField }),
  output: Type.Object({ items: Type.Array(Type.Object({ ai_account_id: Type.String(), friendly_name: Type.String(), entries: Type.Integer(), corrections: Type.Integer(), first_at: Timestamp(), last_at: Timestamp() })) }),
  async handler(deps, ctx, input) {
    const project = await resolveProject(deps.stores, ctx, input.project_id, { forWrite: false });
    const authors = await deps.stores.decisions.authors({ workspaceId: project.workspaceId, projectId: project.id });
    return { body: { items: authors.map((a) => ({ ai_account_id: a.aiAccountId, friendly_name: a.friendlyName, entries: a.entries, corrections: a.corrections, first_at: a.firstAt.toISOString(), last_at: a.lastAt.toISOString() })) } };
  },
});

const countDecisionsByPeriodOp = defineSessionStateRead({
  name: "count_decisions_by_period",
  summary: "Decisions per UTC day, week (from Monday) or month of decided_at, zero-filled (at most 366 buckets; default the last 30 days).",
  http: { path: "/v1/decision-log/count-by-period", query: ["project_id", "period", "since", "until"] },
  input: Type.Object({ project_id: ProjectIdField, period: Type.Optional(Type.String({ description: "day (default), week or month." })), since: Type.Optional(Type.String()), until: Type.Optional(Type.String()) }),
  output: Type.Object({ period: Type.String(), buckets: Type.Array(Type.Object({ start: Timestamp(), count: Type.Integer() })), total: Type.Integer() }),
  async handler(deps, ctx, input) {
    const project = await resolveProject(deps.stores, ctx, input.project_id, { forWrite: false });
    const period = parseEnum(input.period, COUNT_PERIODS, "period") ?? "day";
    const body = await countDecisionsByPeriod(deps.stores, { workspaceId: project.workspaceId, projectId: project.id, period, since: parseTimestamp(input.since, "since"), until: parseTimestamp(input.until, "until"), now: deps.clock.now() });
    return { body };
  },
});

const getDecisionOp = defineSessionStateRead({
  name: "get_decision",
  summary: "Read one decision-log entry with its source amendments and its place in its correction chain.",
  http: { path: "/v1/decision-log/{decision_id}" },
  input: Type.Object(DecisionPath),
  output: DecisionDetailSchema,
  handler: async (deps, ctx, input) => ({ body: await decisionDetail(deps.stores, ctx, input.decision_id) }),
});

const getDecisionSummaryOp = defineSessionStateRead({
  name: "get_decision_summary",
  summary: "A decision in one line: number, title, status, the chain's tip, the first sentence of the decision, tags, files, corrections.",
  http: { path: "/v1/decision-log/{decision_id}/summary" },
  input: Type.Object(DecisionPath),
  output: Type.Object({
    id: Type.String(),
    number: Type.Integer(),
    title: Type.String(),
    status: Type.String(),
    tip_id: Type.String({ description: "The current entry of the chain (the one to correct)." }),
    one_line: Type.String({ description: "The first sentence of decision_md without markdown, up to 200 characters." }),
    tags: Type.Array(Type.String()),
    files: Type.Array(Type.String()),
    corrections: Type.Integer({ description: "Corrections in the chain." }),
    decided_at: Timestamp(),
  }),
  handler: async (deps, ctx, input) => ({ body: await decisionSummary(deps.stores, ctx, input.decision_id) }),
});

const correctDecisionOp = defineSessionStateWrite({
  name: "correct_decision",
  summary: "Correct a decision: a new entry superseding the chain's tip (the old entry never changes); correcting an entry that is not the tip gives 409 with details.current_id.",
  http: { method: "POST", path: "/v1/decision-log/{decision_id}/correct" },
  input: Type.Object({
    ...DecisionPath,
    decision_md: MarkdownField("What is decided now."),
    rationale_md: MarkdownField("Why it changed (required)."),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "Default: the superseded entry's title." })),
    ...contentFields,
  }),
  output: DecisionSchema,
  successStatus: 201,
  run: async (deps, ctx, input, stores) => {
    const { decision_id, ...content } = input;
    return { body: decisionView(await correctDecision(deps, stores, ctx, decision_id, content)) };
  },
});

const amendDecisionSourceOp = defineSessionStateWrite({
  name: "amend_decision_source",
  summary: "Append an amendment of an entry's source (a PR number that came later, a better URL); the entry itself never changes.",
  http: { method: "POST", path: "/v1/decision-log/{decision_id}/amend-source" },
  input: Type.Object({ ...DecisionPath, source: SourceInput, reason: Type.String({ minLength: 1, maxLength: 2_000 }) }),
  output: AmendmentSchema,
  successStatus: 201,
  run: async (deps, ctx, input, stores) => ({ body: amendmentView(await amendDecisionSource(deps, stores, ctx, input.decision_id, input)) }),
});

/** The decision-log operations (SESSION-STATE §4); fixed paths before `{decision_id}`. */
export const DECISION_LOG_OPERATIONS = [recordDecisionOp, listDecisionsOp, searchDecisionsOp, listDecisionAuthorsOp, countDecisionsByPeriodOp, getDecisionOp, getDecisionSummaryOp, correctDecisionOp, amendDecisionSourceOp];
