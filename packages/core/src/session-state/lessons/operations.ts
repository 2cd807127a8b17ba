import { Type, type Static } from "@sinclair/typebox";
import { parseEnum } from "../conventions/fields.ts";
import { EVIDENCE_KINDS, LESSON_SORTS, LESSON_STATUSES } from "./lesson.ts";
import { LESSON_LIMITS, createLesson, deleteLesson, findLesson, lessonView, observationView, observeLesson, setLessonStatus } from "./lessons.ts";
import { findBySlug, resolveProject } from "../conventions/resolve-project.ts";
import { defineSessionStateWrite } from "../conventions/define-session-state-write.ts";
import { defineSessionStateRead } from "../conventions/define-session-state-read.ts";
import { offsetPage } from "../../cursors/paged-list.ts";
import { CreatedBySchema, CursorField, IdField, LimitField, MarkdownField, Nullable, PageOf, ProjectIdField, TagsField, Timestamp } from "../conventions/operation-fields.ts";

/** The wire schema of evidence an observation points at. */
export const EvidenceInput = Type.Object({ kind: Type.Union(EVIDENCE_KINDS.map((k) => Type.Literal(k))), ref: Type.String({ minLength: 1, maxLength: 500 }) }, { additionalProperties: false, description: "What the observation points at." });
/** An observation as it arrives. */
export const ObservationInputSchema = Type.Object(
  {
    note: Type.String({ minLength: 1, maxLength: LESSON_LIMITS.noteMax }),
    build_session_id: Type.Optional(IdField("The session it was observed in (default: your active session in the project).")),
    evidence: Type.Optional(EvidenceInput),
  },
  { additionalProperties: false },
);
const ObservationSchema = Type.Object({ id: Type.String(), build_session_id: Nullable(Type.String()), note: Type.String(), evidence: Nullable(Type.Object({ kind: Type.String(), ref: Type.String() })), at: Timestamp(), by: CreatedBySchema });

/** The wire schema of a lesson. */
export const LessonSchema = Type.Object(
  {
    id: Type.String({ description: "ULID of the lesson." }),
    project_id: Type.String(),
    slug: Type.String({ description: "Unique per project among lessons not deleted." }),
    title: Type.String(),
    body_md: Type.String({ description: "What to do; \"Do:\" and \"Don't:\" lines recommended." }),
    why_md: Type.String(),
    tags: Type.Array(Type.String()),
    status: Type.Union(LESSON_STATUSES.map((s) => Type.Literal(s)), { description: "active <-> retired; superseded is terminal." }),
    superseded_by_id: Nullable(Type.String()),
    status_reason: Nullable(Type.String()),
    observation_count: Type.Integer(),
    distinct_session_count: Type.Integer(),
    first_observed_at: Nullable(Timestamp()),
    last_observed_at: Nullable(Timestamp()),
    source_candidate_id: Nullable(Type.String({ description: "The candidate it was promoted from." })),
    source: Nullable(Type.Object({ kind: Type.String(), ref: Type.String(), url: Nullable(Type.String()) })),
    version: Type.Integer(),
    created_at: Timestamp(),
    updated_at: Timestamp(),
    created_by: CreatedBySchema,
  },
  { description: "A lesson." },
);
/** A lesson as the operations answer it (derived from `LessonSchema`). */
export type LessonWire = Static<typeof LessonSchema>;
const LessonWithObservations = Type.Object({ ...LessonSchema.properties, observations: Type.Array(ObservationSchema, { description: "The last 20, newest first." }) });
/** A lesson with its last 20 observations, as get_lesson answers it (derived from its schema). */
export type LessonDetailWire = Static<typeof LessonWithObservations>;
const LessonPath = { lesson_id: IdField("ULID of the lesson.") };

const withObservations = async (stores: Parameters<typeof findLesson>[0], lesson: Parameters<typeof lessonView>[0]) => ({
  ...lessonView(lesson),
  observations: (await stores.lessons.observations({ workspaceId: lesson.workspaceId, lessonId: lesson.id, limit: LESSON_LIMITS.observationsShown })).map(observationView),
});

const createOp = defineSessionStateWrite({
  name: "create_lesson",
  summary: "Record a lesson (active) with an optional first observation; a slug already held gives 409 with details.existing_id (observe that lesson instead).",
  http: { method: "POST", path: "/v1/lessons" },
  input: Type.Object({
    project_id: ProjectIdField,
    slug: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "Default: derived from the title." })),
    title: Type.String({ minLength: 1, maxLength: 200 }),
    body_md: MarkdownField("The lesson (\"Do:\" / \"Don't:\" lines recommended)."),
    why_md: Type.Optional(MarkdownField("Why it matters.")),
    tags: Type.Optional(TagsField()),
    observation: Type.Optional(ObservationInputSchema),
  }),
  output: LessonSchema,
  successStatus: 201,
  run: async (deps, ctx, input, stores) => ({ body: lessonView((await createLesson(deps, stores, ctx, input)).lesson) }),
});

const listOp = defineSessionStateRead({
  name: "list_lessons",
  summary: "A project's lessons (status, tag, q: words of title, body, why and tags), by last_observed_at (default) or observation_count, newest or most first.",
  http: { path: "/v1/lessons", query: ["project_id", "status", "tag", "q", "sort", "limit", "cursor"] },
  input: Type.Object({
    project_id: ProjectIdField,
    status: Type.Optional(Type.String({ description: "active, retired or superseded." })),
    tag: Type.Optional(Type.String({ maxLength: 40 })),
    q: Type.Optional(Type.String({ maxLength: 500 })),
    sort: Type.Optional(Type.String({ description: "last_observed_at (default) or observation_count." })),
    limit: LimitField,
    cursor: CursorField,
  }),
  output: PageOf(LessonSchema, "A page of lessons."),
  async handler(deps, ctx, input) {
    const project = await resolveProject(deps.stores, ctx, input.project_id, { forWrite: false });
    const filters = { status: parseEnum(input.status, LESSON_STATUSES, "status"), tag: input.tag ?? null, q: input.q === undefined || input.q.trim() === "" ? null : input.q };
    const sort = parseEnum(input.sort, LESSON_SORTS, "sort") ?? "last_observed_at";
    const body = await offsetPage(deps, ctx, { resource: "lessons", filters: { project: project.id, sort, ...filters }, limit: input.limit, cursor: input.cursor }, (offset, limit) => deps.stores.lessons.list({ workspaceId: project.workspaceId, projectId: project.id, filters, sort, offset, limit }), lessonView);
    return { body };
  },
});

const bySlugOp = defineSessionStateRead({
  name: "get_lesson_by_slug",
  summary: "Read a project's lesson by its slug, with its last 20 observations.",
  http: { path: "/v1/lessons/by-slug", query: ["project_id", "slug"] },
  input: Type.Object({ project_id: ProjectIdField, slug: Type.String({ minLength: 1, maxLength: 64 }) }),
  output: LessonWithObservations,
  handler: async (deps, ctx, input) => ({ body: await withObservations(deps.stores, await findBySlug(deps.stores, ctx, input, "Lesson", (p) => deps.stores.lessons.findBySlug(p))) }),
});

const getOp = defineSessionStateRead({
  name: "get_lesson",
  summary: "Read a lesson with its last 20 observations.",
  http: { path: "/v1/lessons/{lesson_id}" },
  input: Type.Object(LessonPath),
  output: LessonWithObservations,
  handler: async (deps, ctx, input) => ({ body: await withObservations(deps.stores, (await findLesson(deps.stores, ctx, input.lesson_id)).record) }),
});

const statusOp = defineSessionStateWrite({
  name: "set_lesson_status",
  summary: "Retire an active lesson, reactivate a retired one, or mark one superseded by another active lesson of the project (terminal); a reason is required.",
  http: { method: "POST", path: "/v1/lessons/{lesson_id}/status" },
  input: Type.Object({
    ...LessonPath,
    status: Type.Union(LESSON_STATUSES.map((s) => Type.Literal(s))),
    reason: Type.String({ minLength: 1, maxLength: LESSON_LIMITS.reasonMax }),
    superseded_by_id: Type.Optional(IdField("The active lesson that supersedes it (status superseded).")),
  }),
  output: LessonSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => ({ body: lessonView((await setLessonStatus(deps, stores, ctx, input.lesson_id, input)).lesson) }),
});

const observeOp = defineSessionStateWrite({
  name: "observe_lesson",
  summary: "Record that a lesson was observed again (a note, the session, evidence): counts and distinct sessions grow; a superseded lesson gives 409.",
  http: { method: "POST", path: "/v1/lessons/{lesson_id}/observations" },
  input: Type.Object({ ...LessonPath, ...ObservationInputSchema.properties }),
  output: LessonSchema,
  successStatus: 200,
  run: async (deps, ctx, input, stores) => {
    const { lesson_id, ...observation } = input;
    return { body: lessonView((await observeLesson(deps, stores, ctx, lesson_id, observation)).lesson) };
  },
});

const deleteOp = defineSessionStateWrite({
  name: "delete_lesson",
  summary: "Delete a lesson (404 from then on, its slug free again); 409 while an active rule derives from it.",
  http: { method: "DELETE", path: "/v1/lessons/{lesson_id}" },
  input: Type.Object(LessonPath),
  output: Type.Object({ id: Type.String(), deleted: Type.Literal(true) }),
  successStatus: 200,
  run: async (deps, ctx, input, stores) => {
    const { lesson } = await deleteLesson(deps, stores, ctx, input.lesson_id);
    return { body: { id: lesson.id, deleted: true as const } };
  },
});

/** The lesson operations (SESSION-STATE §6); fixed paths before `{lesson_id}`. */
export const LESSON_OPERATIONS = [createOp, listOp, bySlugOp, getOp, statusOp, observeOp, deleteOp];
