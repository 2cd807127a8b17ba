import { Type } from "@sinclair/typebox";
import { malformed } from "../../errors.ts";
import { isUlid } from "../../ids.ts";
import { aggregateSession, briefingFor, continueSession, endSession, findSession, pingSession, prependLead, putCurrentState, putPrs, sessionView, startSession } from "./build-sessions.ts";
import { parseBooleanFlag, parseEnum, parseTimestamp } from "../conventions/fields.ts";
import { BUILD_SESSION_STATES, PR_STATES, type BuildSession, type BuildSessionFilters } from "./build-session.ts";
import type { Project } from "../projects/project.ts";
import type { CoreDeps } from "../../deps.ts";
import { settingMs } from "../projects/projects.ts";
import { resolveProject } from "../conventions/resolve-project.ts";
import { defineSessionStateWrite } from "../conventions/define-session-state-write.ts";
import { defineSessionStateRead } from "../conventions/define-session-state-read.ts";
import { keysetPage } from "../../cursors/paged-list.ts";
import { BacklogItemSchema } from "../backlog/operations.ts";
import { CreatedBySchema, CursorField, ExpectedVersionField, FlagField, IdField, LimitField, MarkdownField, Nullable, PageOf, ProjectIdField, Timestamp } from "../conventions/operation-fields.ts";

const Lines = (description: string) => Type.Array(Type.String({ minLength: 1, maxLength: 500 }), { maxItems: 50, description });
const CurrentStateFields = {
  focus: Type.String({ maxLength: 500, description: "What is being worked on now." }),
  next_steps: Lines("What comes next."),
  blockers: Lines("What stands in the way."),
  open_questions: Lines("What is still unknown."),
  files_in_flight: Lines("Files being changed."),
  notes_md: Type.String({ maxLength: 16_384, description: "Free notes, markdown, up to 16 KB." }),
};
const CurrentStateSchema = Type.Object(CurrentStateFields, { description: "Where the session stands." });
const PrSchema = Type.Object({
  url: Type.String(),
  repo: Nullable(Type.String()),
  number: Nullable(Type.Integer()),
  title: Nullable(Type.String()),
  state: Type.Union(PR_STATES.map((s) => Type.Literal(s))),
  head_sha: Nullable(Type.String()),
});
const LeadLineSchema = Type.Object({ text: Type.String(), added_at: Timestamp(), added_by: CreatedBySchema });
const SessionSchema = Type.Object(
  {
    id: Type.String({ description: "ULID of the session." }),
    project_id: Type.String(),
    ai_account_id: Type.String({ description: "The agent whose session it is." }),
    title: Type.String(),
    goal: Type.String(),
    client: Nullable(Type.Object({ program: Type.String(), model: Type.String(), host: Nullable(Type.String()) })),
    state: Type.Union([Type.Literal("active"), Type.Literal("ended")]),
    end_reason: Nullable(Type.Union([Type.Literal("completed"), Type.Literal("abandoned"), Type.Literal("continued")])),
    liveness: Nullable(Type.Union([Type.Literal("live"), Type.Literal("silent")]), "live, or silent once the last ping is older than the project's session_silence_after; null when ended."),
    started_at: Timestamp(),
    last_ping_at: Timestamp(),
    ended_at: Nullable(Timestamp()),
    ping_count: Type.Integer(),
    active_seconds: Type.Integer({ description: "Sum over pings of min(gap, session_silence_after)." }),
    previous_session_id: Nullable(Type.String()),
    next_session_id: Nullable(Type.String()),
    chain_root_id: Type.String(),
    lead_lines: Type.Array(LeadLineSchema, { description: "Newest first, at most 20." }),
    summary_md: Type.String(),
    learnings: Type.Array(Type.String()),
    current_state: CurrentStateSchema,
    current_state_version: Type.Integer(),
    prs: Type.Array(PrSchema),
    version: Type.Integer(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
    created_by: CreatedBySchema,
  },
  { description: "A build session." },
);
const BriefingSchema = Type.Object(
  {
    project: Type.Object({ id: Type.String(), name: Type.String(), slug: Type.String() }),
    previous_session: Nullable(
      Type.Object({
        id: Type.String(),
        title: Type.String(),
        state: Type.String(),
        end_reason: Nullable(Type.String()),
        ai_account_id: Type.String(),
        started_at: Timestamp(),
        ended_at: Nullable(Timestamp()),
        lead_lines: Type.Array(LeadLineSchema),
        summary_md: Type.String(),
        learnings: Type.Array(Type.String()),
        current_state: CurrentStateSchema,
        prs: Type.Array(PrSchema),
      }),
      "The project's latest other session: where it stopped.",
    ),
    ready_backlog: Type.Array(BacklogItemSchema, { description: "Top five ready items (open, unassigned), by priority then age." }),
    stale_backlog_count: Type.Integer(),
    pending_lesson_candidates: Type.Integer(),
  },
  { description: "Where the last session stopped and what is ready." },
);
const SessionPath = { session_id: IdField("ULID of the build session.") };
const UsageEntry = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 100 }),
    input_tokens: Type.Optional(Type.Integer({ minimum: 0 })),
    output_tokens: Type.Optional(Type.Integer({ minimum: 0 })),
    cache_read_tokens: Type.Optional(Type.Integer({ minimum: 0 })),
    cache_write_tokens: Type.Optional(Type.Integer({ minimum: 0 })),
    cost_micro_usd: Type.Optional(Type.Integer({ minimum: 0, description: "Cost in millionths of a dollar." })),
  },
  { additionalProperties: false },
);
const UsageField = Type.Optional(Type.Array(UsageEntry, { maxItems: 20, description: "Cumulative usage of this session per model (each figure the total so far; below the last one reported: 400)." }));
const PrInput = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048 }),
    repo: Type.Optional(Nullable(Type.String({ maxLength: 200 }))),
    number: Type.Optional(Nullable(Type.Integer({ minimum: 1 }))),
    title: Type.Optional(Nullable(Type.String({ maxLength: 300 }))),
    state: Type.Optional(Type.Union(PR_STATES.map((s) => Type.Literal(s)), { description: "Default open." })),
    head_sha: Type.Optional(Nullable(Type.String({ maxLength: 64 }))),
  },
  { additionalProperties: false },
);

const startOp = defineSessionStateWrite({
  name: "start_build_session",
  summary: "Start a build session in a project; the answer carries a briefing: where the last session stopped, the top ready backlog items, stale counts.",
  http: { method: "POST", path: "/v1/build-sessions", query: ["briefing"] },
  input: Type.Object({
    project_id: ProjectIdField,
    title: Type.String({ minLength: 1, maxLength: 200 }),
    goal: Type.Optional(Type.String({ maxLength: 2_000 })),
    client: Type.Optional(Type.Object({ program: Type.String({ minLength: 1, maxLength: 100 }), model: Type.String({ minLength: 1, maxLength: 100 }), host: Type.Optional(Nullable(Type.String({ maxLength: 200 }))) }, { additionalProperties: false, description: "The program and model the agent runs in." })),
    briefing: FlagField("false leaves the briefing out (null)."),
  }),
  output: Type.Object({ session: SessionSchema, briefing: Nullable(BriefingSchema) }),
  successStatus: 201,
  run: async (deps, ctx, input, stores) => {
    const withBriefing = parseBooleanFlag(input.briefing, "briefing") ?? true;
    const { session, project } = await startSession(deps, stores, ctx, input);
    return { body: { session: sessionView(session, project, deps.clock.now()), briefing: withBriefing ? await briefingFor(deps, stores, project, session.id) : null } };
  },
});

const searchOp = defineSessionStateRead({
  name: "search_build_sessions",
  summary: "Find a project's build sessions, newest first: by state, liveness, agent, start time, PRs, chain, or words (title, goal, summary, lead lines, current state).",
  http: { path: "/v1/build-sessions/search", query: ["project_id", "state", "liveness", "ai_account_id", "started_after", "started_before", "has_open_pr", "pr_url", "chain_root_id", "q", "limit", "cursor"] },
  input: Type.Object({
    project_id: ProjectIdField,
    state: Type.Optional(Type.String({ description: "active or ended." })),
    liveness: Type.Optional(Type.String({ description: "live or silent (active sessions)." })),
    ai_account_id: Type.Optional(IdField("Sessions of this agent.")),
    started_after: Type.Optional(Type.String()),
    started_before: Type.Optional(Type.String()),
    has_open_pr: FlagField("Sessions with (true) or without (false) a draft or open PR."),
    pr_url: Type.Optional(Type.String({ maxLength: 2048 })),
    chain_root_id: Type.Optional(IdField("Sessions of this continuation chain.")),
    q: Type.Optional(Type.String({ maxLength: 500 })),
    limit: LimitField,
    cursor: CursorField,
  }),
  output: PageOf(SessionSchema, "A page of sessions."),
  async handler(deps, ctx, input) {
    const project = await resolveProject(deps.stores, ctx, input.project_id, { forWrite: false });
    for (const f of ["ai_account_id", "chain_root_id"] as const) if (input[f] !== undefined && !isUlid(input[f])) throw malformed(`${f} must be a ULID.`, { field: f });
    const filters: BuildSessionFilters = {
      state: parseEnum(input.state, BUILD_SESSION_STATES, "state"),
      liveness: parseEnum(input.liveness, ["live", "silent"] as const, "liveness"),
      aiAccountId: input.ai_account_id ?? null,
      startedAfter: parseTimestamp(input.started_after, "started_after"),
      startedBefore: parseTimestamp(input.started_before, "started_before"),
      hasOpenPr: parseBooleanFlag(input.has_open_pr, "has_open_pr"),
      prUrl: input.pr_url ?? null,
      chainRootId: input.chain_root_id ?? null,
      q: input.q === undefined || input.q.trim() === "" ? null : input.q,
    };
    const now = deps.clock.now();
    const body = await keysetPage(deps, ctx, { resource: "build-sessions", filters: { project: project.id, ...filters }, limit: input.limit, cursor: input.cursor }, (after, limit) => deps.stores.buildSessions.search({ workspaceId: project.workspaceId, projectId: project.id, filters, now, silenceMs: settingMs(project, "session_silence_after"), after, limit }), (s) => sessionView(s, project, now));
    return { body };
  },
});

const getOp = defineSessionStateRead({
  name: "get_build_session",
  summary: "Read a build session: state, liveness, lead lines, current state, PRs, chain links.",
  http: { path: "/v1/build-sessions/{session_id}" },
  input: Type.Object(SessionPath),
  output: SessionSchema,
  async handler(deps, ctx, input) {
    const { session, project } = await findSession(deps.stores, ctx, input.session_id);
    return { body: sessionView(session, project, deps.clock.now()) };
  },
});

const aggregateOp = defineSessionStateRead({
  name: "get_build_session_aggregate",
  summary: "Figures of a build session (or its whole continuation chain with chain=true): wall and active time, pings, decisions, backlog created/triaged/resolved/dismissed/touched, PRs by state.",
  http: { path: "/v1/build-sessions/{session_id}/aggregate", query: ["chain"] },
  input: Type.Object({ ...SessionPath, chain: FlagField("true: the whole chain of continuations.") }),
  output: Type.Object({
    session_ids: Type.Array(Type.String()),
    chain: Type.Boolean(),
    wall_seconds: Type.Integer(),
    active_seconds: Type.Integer(),
    pings: Type.Integer(),
    decisions: Type.Object({ recorded: Type.Integer(), corrected: Type.Integer() }),
    backlog: Type.Object({ created: Type.Integer(), triaged: Type.Integer(), resolved: Type.Integer(), dismissed: Type.Integer(), touched: Type.Integer() }),
    lessons: Type.Object({ created: Type.Integer(), observed: Type.Integer() }),
    candidates: Type.Object({ detected: Type.Integer(), promoted: Type.Integer() }),
    prs_by_state: Type.Record(Type.String(), Type.Integer()),
    usage: Type.Object({ input_tokens: Type.Integer(), output_tokens: Type.Integer(), cache_read_tokens: Type.Integer(), cache_write_tokens: Type.Integer(), total_tokens: Type.Integer(), cost_usd: Type.String() }, { description: "Usage reported so far (the last cumulative report of each model, summed)." }),
    liveness: Nullable(Type.String()),
  }),
  handler: async (deps, ctx, input) => ({ body: await aggregateSession(deps, deps.stores, ctx, input.session_id, parseBooleanFlag(input.chain, "chain") ?? false) }),
});

const sessionResult = (deps: CoreDeps, r: { session: BuildSession; project: Project }) => sessionView(r.session, r.project, deps.clock.now());

const pingOp = defineSessionStateWrite({
  name: "ping_build_session",
  summary: "Tell the service the session is alive (counts active time: each gap up to session_silence_after); optionally set the current focus. An ended session gives 409.",
  http: { method: "POST", path: "/v1/build-sessions/{session_id}/ping" },
  input: Type.Object({ ...SessionPath, focus: Type.Optional(Type.String({ maxLength: 500 })), usage: UsageField }),
  output: SessionSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => ({ body: sessionResult(deps, await pingSession(deps, stores, ctx, input.session_id, input)) }),
});

const currentStateOp = defineSessionStateWrite({
  name: "put_build_session_current_state",
  summary: "Replace the session's current state whole (focus, next steps, blockers, open questions, files in flight, notes); expected_version guards against a stale read.",
  http: { method: "PUT", path: "/v1/build-sessions/{session_id}/current-state" },
  input: Type.Object({ ...SessionPath, expected_version: ExpectedVersionField, ...CurrentStateFields }),
  output: SessionSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => {
    const { session_id, ...state } = input;
    return { body: sessionResult(deps, await putCurrentState(deps, stores, ctx, session_id, state)) };
  },
});

const prsOp = defineSessionStateWrite({
  name: "put_build_session_prs",
  summary: "Replace the session's set of pull requests (at most 50, keyed by url); allowed after the end.",
  http: { method: "PUT", path: "/v1/build-sessions/{session_id}/prs" },
  input: Type.Object({ ...SessionPath, prs: Type.Array(PrInput, { maxItems: 50 }) }),
  output: SessionSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => ({ body: sessionResult(deps, await putPrs(deps, stores, ctx, input.session_id, input)) }),
});

const leadOp = defineSessionStateWrite({
  name: "prepend_build_session_lead",
  summary: "Push a line the next session should read first (newest first, 20 kept); the same text as the top line changes nothing.",
  http: { method: "POST", path: "/v1/build-sessions/{session_id}/prepend-lead" },
  input: Type.Object({ ...SessionPath, text: Type.String({ minLength: 1, maxLength: 300 }) }),
  output: SessionSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => ({ body: sessionResult(deps, await prependLead(deps, stores, ctx, input.session_id, input)) }),
});

const endOp = defineSessionStateWrite({
  name: "end_build_session",
  summary: "End a build session with a summary and learnings (end_reason completed or abandoned); ending it again gives 409.",
  http: { method: "POST", path: "/v1/build-sessions/{session_id}/end" },
  input: Type.Object({
    ...SessionPath,
    end_reason: Type.Optional(Type.Union([Type.Literal("completed"), Type.Literal("abandoned")], { description: "Default completed." })),
    summary_md: Type.Optional(MarkdownField("What the session did.")),
    learnings: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 2_000 }), { maxItems: 20, description: "What was learned (lesson material)." })),
    usage: UsageField,
  }),
  output: SessionSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => ({ body: sessionResult(deps, await endSession(deps, stores, ctx, input.session_id, input)) }),
});

const continuationOp = defineSessionStateWrite({
  name: "continue_build_session",
  summary: "Continue a session in a new one: the old one ends (continued), the new one carries its current state and unmerged PRs; a second continuation gives 409.",
  http: { method: "POST", path: "/v1/build-sessions/{session_id}/continuation" },
  input: Type.Object({ ...SessionPath, title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), goal: Type.Optional(Type.String({ maxLength: 2_000 })) }),
  output: SessionSchema,
  successStatus: 201,
  run: async (deps, ctx, input, stores) => ({ body: sessionResult(deps, await continueSession(deps, stores, ctx, input.session_id, input)) }),
});

/** The build-session operations (SESSION-STATE §3); fixed paths before `{session_id}`. */
export const BUILD_SESSION_OPERATIONS = [startOp, searchOp, getOp, aggregateOp, pingOp, currentStateOp, prsOp, leadOp, endOp, continuationOp];
