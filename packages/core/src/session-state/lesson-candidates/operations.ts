import { Type, type Static } from "@sinclair/typebox";
import { malformed } from "../../errors.ts";
import { parseBooleanFlag, parseEnum } from "../conventions/fields.ts";
import { CANDIDATE_STATUSES, DETECTORS } from "./lesson-candidate.ts";
import { candidateView, detectCandidates, findCandidate, observeCandidate, promoteCandidate, rejectCandidate, supersedeCandidate } from "./lesson-candidates.ts";
import { LESSON_LIMITS, lessonView } from "../lessons/lessons.ts";
import { resolveProject } from "../conventions/resolve-project.ts";
import { LessonSchema, ObservationInputSchema } from "../lessons/operations.ts";
import { defineSessionStateWrite } from "../conventions/define-session-state-write.ts";
import { defineSessionStateRead } from "../conventions/define-session-state-read.ts";
import { offsetPage } from "../../cursors/paged-list.ts";
import { CreatedBySchema, CursorField, FlagField, IdField, LimitField, MarkdownField, Nullable, PageOf, ProjectIdField, Timestamp } from "../conventions/operation-fields.ts";

const DetectorSchema = Type.Union(DETECTORS.map((d) => Type.Literal(d)));

/** The wire schema of a lesson candidate. */
export const CandidateSchema = Type.Object(
  {
    id: Type.String({ description: "ULID of the candidate." }),
    project_id: Type.String(),
    fingerprint: Type.String({ description: "SHA-256 of the sorted keyword set; unique among the project's pending candidates." }),
    detector: DetectorSchema,
    title: Type.String(),
    body_md: Type.String(),
    keywords: Type.Array(Type.String()),
    evidence: Type.Array(Type.Object({ kind: Type.String(), ref_id: Type.String(), build_session_id: Nullable(Type.String()), excerpt: Type.String(), observed_at: Timestamp() })),
    observation_count: Type.Integer(),
    distinct_session_count: Type.Integer(),
    score: Type.Integer({ description: "2 x distinct sessions + observations + 3 (corrections, regressions) or 1." }),
    ready: Type.Boolean({ description: "Distinct sessions >= the project's candidate_min_sessions, or a correction or regression." }),
    status: Type.Union(CANDIDATE_STATUSES.map((s) => Type.Literal(s))),
    promoted_lesson_id: Nullable(Type.String()),
    superseded_by: Nullable(Type.Object({ candidate_id: Nullable(Type.String()), lesson_id: Nullable(Type.String()) })),
    reason: Nullable(Type.String()),
    suggested_lesson_id: Nullable(Type.String({ description: "An active lesson it resembles (Jaccard >= 0.6): promote into it?" })),
    version: Type.Integer(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
    created_by: CreatedBySchema,
  },
  { description: "A lesson candidate." },
);
/** A lesson candidate as the operations answer it (derived from `CandidateSchema`). */
export type CandidateWire = Static<typeof CandidateSchema>;
const CandidatePath = { lesson_candidate_id: IdField("ULID of the lesson candidate.") };
const ReasonField = Type.String({ minLength: 1, maxLength: LESSON_LIMITS.reasonMax });

const detectOp = defineSessionStateWrite({
  name: "detect_lesson_candidates",
  summary: "Run the five deterministic detectors over the project's records since `since` (default 30 days): new evidence joins a pending candidate or makes a new one; running it twice over the same window adds nothing; dry_run writes nothing.",
  http: { method: "POST", path: "/v1/lesson-candidates/detect" },
  input: Type.Object({
    project_id: ProjectIdField,
    since: Type.Optional(Type.String({ description: "Start of the window (ISO 8601); default 30 days ago. The window ends now." })),
    detectors: Type.Optional(Type.Array(DetectorSchema, { maxItems: DETECTORS.length, description: "Default: all five." })),
    dry_run: Type.Optional(Type.Boolean({ description: "Report what would be created or updated; write nothing." })),
  }),
  output: Type.Object({ window: Type.Object({ since: Timestamp(), until: Timestamp() }), created: Type.Array(CandidateSchema), updated: Type.Array(CandidateSchema), unchanged: Type.Integer({ description: "Findings whose evidence was all counted already." }), dry_run: Type.Boolean() }),
  successStatus: 200,
  run: async (deps, ctx, input, stores) => {
    const r = await detectCandidates(deps, stores, ctx, input);
    return { body: { window: { since: r.window.since.toISOString(), until: r.window.until.toISOString() }, created: r.created.map(candidateView), updated: r.updated.map(candidateView), unchanged: r.unchanged, dry_run: input.dry_run === true } };
  },
});

const listOp = defineSessionStateRead({
  name: "list_lesson_candidates",
  summary: "A project's lesson candidates by score (highest first): status (default pending, or any), detector, ready, min_score.",
  http: { path: "/v1/lesson-candidates", query: ["project_id", "status", "detector", "ready", "min_score", "limit", "cursor"] },
  input: Type.Object({
    project_id: ProjectIdField,
    status: Type.Optional(Type.String({ description: "pending (default), promoted, rejected, superseded, or any." })),
    detector: Type.Optional(Type.String()),
    ready: FlagField("Only ready (true) or not ready (false) candidates."),
    min_score: Type.Optional(Type.Union([Type.Integer(), Type.String()])),
    limit: LimitField,
    cursor: CursorField,
  }),
  output: PageOf(CandidateSchema, "A page of candidates."),
  async handler(deps, ctx, input) {
    const project = await resolveProject(deps.stores, ctx, input.project_id, { forWrite: false });
    const minScore = input.min_score === undefined || input.min_score === "" ? null : typeof input.min_score === "number" ? input.min_score : /^\d{1,6}$/.test(input.min_score) ? Number(input.min_score) : NaN;
    if (minScore !== null && !Number.isInteger(minScore)) throw malformed("min_score must be a non-negative integer.", { field: "min_score" });
    const filters = {
      status: input.status === "any" ? null : (parseEnum(input.status, CANDIDATE_STATUSES, "status") ?? "pending"),
      detector: parseEnum(input.detector, DETECTORS, "detector"),
      ready: parseBooleanFlag(input.ready, "ready"),
      minScore,
    };
    const body = await offsetPage(deps, ctx, { resource: "lesson-candidates", filters: { project: project.id, ...filters }, limit: input.limit, cursor: input.cursor }, (offset, limit) => deps.stores.candidates.list({ workspaceId: project.workspaceId, projectId: project.id, filters, offset, limit }), candidateView);
    return { body };
  },
});

const countsOp = defineSessionStateRead({
  name: "count_lesson_candidates",
  summary: "How many of a project's candidates are in each status, and pending ones per detector.",
  http: { path: "/v1/lesson-candidates/counts", query: ["project_id"] },
  input: Type.Object({ project_id: ProjectIdField }),
  output: Type.Object({ by_status: Type.Record(Type.String(), Type.Integer()), by_detector: Type.Record(Type.String(), Type.Integer(), { description: "Pending candidates per detector." }) }),
  async handler(deps, ctx, input) {
    const project = await resolveProject(deps.stores, ctx, input.project_id, { forWrite: false });
    const c = await deps.stores.candidates.counts({ workspaceId: project.workspaceId, projectId: project.id });
    return { body: { by_status: c.byStatus, by_detector: c.byDetector } };
  },
});

const getOp = defineSessionStateRead({
  name: "get_lesson_candidate",
  summary: "Read a lesson candidate with its evidence.",
  http: { path: "/v1/lesson-candidates/{lesson_candidate_id}" },
  input: Type.Object(CandidatePath),
  output: CandidateSchema,
  handler: async (deps, ctx, input) => ({ body: candidateView((await findCandidate(deps.stores, ctx, input.lesson_candidate_id)).record) }),
});

const promoteOp = defineSessionStateWrite({
  name: "promote_lesson_candidate",
  summary: "Promote a pending candidate: a new lesson carrying its evidence as observations (title and body from the candidate unless given), or its evidence added to into_lesson_id.",
  http: { method: "POST", path: "/v1/lesson-candidates/{lesson_candidate_id}/promote" },
  input: Type.Object({
    ...CandidatePath,
    slug: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    title: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    body_md: Type.Optional(MarkdownField("The lesson's body (default: the candidate's).")),
    into_lesson_id: Type.Optional(IdField("Merge into this lesson of the project instead of creating one.")),
  }),
  output: Type.Object({ candidate: CandidateSchema, lesson: LessonSchema }),
  successStatus: 200,
  run: async (deps, ctx, input, stores) => {
    const r = await promoteCandidate(deps, stores, ctx, input.lesson_candidate_id, input);
    return { body: { candidate: candidateView(r.candidate), lesson: lessonView(r.lesson) } };
  },
});

const rejectOp = defineSessionStateWrite({
  name: "reject_lesson_candidate",
  summary: "Reject a pending candidate with a reason (its evidence is not proposed again).",
  http: { method: "POST", path: "/v1/lesson-candidates/{lesson_candidate_id}/reject" },
  input: Type.Object({ ...CandidatePath, reason: ReasonField }),
  output: CandidateSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => ({ body: candidateView(await rejectCandidate(deps, stores, ctx, input.lesson_candidate_id, input)) }),
});

const supersedeOp = defineSessionStateWrite({
  name: "supersede_lesson_candidate",
  summary: "Mark a pending candidate superseded by another candidate or a lesson of the project (name exactly one), with a reason.",
  http: { method: "POST", path: "/v1/lesson-candidates/{lesson_candidate_id}/supersede" },
  input: Type.Object({ ...CandidatePath, candidate_id: Type.Optional(IdField("The candidate that supersedes it.")), lesson_id: Type.Optional(IdField("The lesson that supersedes it.")), reason: ReasonField }),
  output: CandidateSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => ({ body: candidateView(await supersedeCandidate(deps, stores, ctx, input.lesson_candidate_id, input)) }),
});

const observeOp = defineSessionStateWrite({
  name: "observe_lesson_candidate",
  summary: "Add an observation to a pending candidate (as evidence: counts and score grow); other statuses give 409.",
  http: { method: "POST", path: "/v1/lesson-candidates/{lesson_candidate_id}/observations" },
  input: Type.Object({ ...CandidatePath, ...ObservationInputSchema.properties }),
  output: CandidateSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => {
    const { lesson_candidate_id, ...observation } = input;
    return { body: candidateView(await observeCandidate(deps, stores, ctx, lesson_candidate_id, observation)) };
  },
});

/** The lesson-candidate operations (SESSION-STATE §7); fixed paths before `{lesson_candidate_id}`. */
export const LESSON_CANDIDATE_OPERATIONS = [detectOp, listOp, countsOp, getOp, promoteOp, rejectOp, supersedeOp, observeOp];
