import type { CoreDeps } from "../../deps.ts";
import { DomainError, malformed } from "../../errors.ts";
import type { OperationContext } from "../../operation.ts";
import type { Stores } from "../../ports.ts";
import { sessionOfChange } from "../conventions/session-of-change.ts";
import { SLUG_PATTERN, checkMarkdown, checkTags, checkTitle } from "../conventions/fields.ts";
import { EVIDENCE_KINDS, type EvidenceKind, type Lesson, type LessonObservation } from "./lesson.ts";
import type { Project } from "../projects/project.ts";
import type { SourceRef } from "../decision-log/decision-entry.ts";
import { mutateWithProject } from "../conventions/record-mutation.ts";
import { findInProject, projectArchived, resolveProject } from "../conventions/resolve-project.ts";
import { actorOf, recordChange } from "../conventions/record-history.ts";
import { slugify } from "../text/slug.ts";

/** Limits of lessons (SESSION-STATE §6). */
export const LESSON_LIMITS = { noteMax: 2_000, reasonMax: 2_000, observationsShown: 20, evidenceRefMax: 500 } as const;

/** An observation as it arrives. */
export interface ObservationInput {
  note: string;
  build_session_id?: string;
  evidence?: { kind: string; ref: string };
}

/**
 * The lesson as the caller may see it (not deleted), with its project.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND.
 */
export async function findLesson(stores: Stores, ctx: Pick<OperationContext, "principal">, id: string): Promise<{ record: Lesson; project: Project }> {
  return findInProject(stores, ctx, id, "Lesson", async (p) => {
    const lesson = await stores.lessons.find(p);
    return lesson !== null && lesson.deletedAt === null ? lesson : null;
  });
}

/** An optional slug, checked. */
export function checkSlug(slug: string | undefined, title: string): string {
  if (slug === undefined) return slugify(title);
  if (!SLUG_PATTERN.test(slug)) throw malformed(`slug must match ${SLUG_PATTERN.source}.`, { field: "slug" });
  return slug;
}

function checkEvidence(e: { kind: string; ref: string } | undefined): { kind: EvidenceKind; ref: string } | null {
  if (e === undefined) return null;
  if (!(EVIDENCE_KINDS as readonly string[]).includes(e.kind)) throw malformed(`evidence.kind must be one of ${EVIDENCE_KINDS.join(", ")}.`, { field: "evidence.kind" });
  return { kind: e.kind as EvidenceKind, ref: checkTitle(e.ref, "evidence.ref", LESSON_LIMITS.evidenceRefMax) };
}

/** An observation checked and bound to its session (given, same project; else the caller's active session). */
export async function newObservation(deps: Pick<CoreDeps, "ids" | "clock">, stores: Stores, ctx: OperationContext, lesson: Pick<Lesson, "workspaceId" | "id" | "projectId">, input: ObservationInput): Promise<LessonObservation> {
  const note = checkTitle(input.note, "note", LESSON_LIMITS.noteMax);
  const evidence = checkEvidence(input.evidence);
  const buildSessionId = await sessionOfChange(stores, ctx, lesson.projectId, input.build_session_id);
  return { workspaceId: lesson.workspaceId, id: deps.ids.next(), projectId: lesson.projectId, lessonId: lesson.id, buildSessionId, note, evidence, at: deps.clock.now(), by: actorOf(ctx) };
}

/** What POST /lessons takes. */
export interface CreateLessonInput {
  project_id?: string;
  slug?: string;
  title: string;
  body_md: string;
  why_md?: string;
  tags?: string[];
  observation?: ObservationInput;
}

/** How a lesson came to be, besides the caller's input. */
export interface LessonOrigin {
  sourceCandidateId?: string | null;
  source?: SourceRef | null;
  /** Observations to carry (a promoted candidate's evidence). */
  observations?: Omit<LessonObservation, "lessonId">[];
}

/**
 * Creates an active lesson (`lesson.created`), with an observation when given. A slug held by a
 * lesson of the project that is not deleted: 409 details.existing_id.
 * @throws DomainError SVC_MALFORMED_REQUEST, SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT.
 */
export async function createLesson(deps: CoreDeps, stores: Stores, ctx: OperationContext, input: CreateLessonInput, origin: LessonOrigin = {}, project?: Project): Promise<{ lesson: Lesson; project: Project }> {
  const p = project ?? (await resolveProject(stores, ctx, input.project_id, { forWrite: true }));
  const title = checkTitle(input.title);
  const now = deps.clock.now();
  const base: Lesson = {
    workspaceId: p.workspaceId,
    id: deps.ids.next(),
    projectId: p.id,
    slug: checkSlug(input.slug, title),
    title,
    bodyMd: checkMarkdown(input.body_md, "body_md", { required: true }),
    whyMd: checkMarkdown(input.why_md, "why_md"),
    tags: checkTags(input.tags),
    status: "active",
    supersededById: null,
    statusReason: null,
    observationCount: 0,
    distinctSessionCount: 0,
    firstObservedAt: null,
    lastObservedAt: null,
    sourceCandidateId: origin.sourceCandidateId ?? null,
    source: origin.source ?? null,
    deletedAt: null,
    version: 1,
    createdAt: now,
    updatedAt: now,
    createdBy: actorOf(ctx),
  };
  const observations: LessonObservation[] = (origin.observations ?? []).map((o) => ({ ...o, lessonId: base.id }));
  if (input.observation !== undefined) observations.push(await newObservation(deps, stores, ctx, base, input.observation));
  const lesson = withObservations(base, observations, new Set(observations.map((o) => o.buildSessionId).filter((s) => s !== null)).size);
  const inserted = await stores.lessons.insert({ lesson });
  if (inserted.kind === "slug_taken") throw new DomainError("SVC_RESOURCE_CONFLICT", "A lesson of the project has that slug; observe it instead, or choose another slug.", { reason: "slug_taken", existing_id: inserted.existingId });
  for (const observation of observations) await stores.lessons.addObservation({ observation });
  const buildSessionId = await sessionOfChange(stores, ctx, p.id, null);
  await recordChange(deps, stores, ctx, { projectId: p.id, subjectType: "lesson", subjectId: lesson.id, eventType: "created", oldValue: null, newValue: { slug: lesson.slug, observations: observations.length, source_candidate_id: lesson.sourceCandidateId }, buildSessionId, at: now });
  return { lesson, project: p };
}

/** A lesson with `observations` counted in (distinct sessions given by the caller). */
function withObservations(lesson: Lesson, observations: readonly LessonObservation[], distinctSessions: number): Lesson {
  if (observations.length === 0) return lesson;
  const times = observations.map((o) => o.at.getTime());
  const first = Math.min(...times);
  const last = Math.max(...times);
  return {
    ...lesson,
    observationCount: lesson.observationCount + observations.length,
    distinctSessionCount: distinctSessions,
    firstObservedAt: lesson.firstObservedAt === null || lesson.firstObservedAt.getTime() > first ? new Date(first) : lesson.firstObservedAt,
    lastObservedAt: lesson.lastObservedAt === null || lesson.lastObservedAt.getTime() < last ? new Date(last) : lesson.lastObservedAt,
  };
}

const mutate = (stores: Stores, ctx: OperationContext, id: string, decide: (l: Lesson, p: Project) => Lesson | Promise<Lesson>) =>
  mutateWithProject(() => findLesson(stores, ctx, id), decide, (next, expectedVersion) => stores.lessons.replace({ lesson: next, expectedVersion }));

/**
 * Adds observations to a lesson that is not superseded (`lesson.observed`), counts and
 * distinct sessions updated under compare-and-set. Superseded: 409.
 */
export async function observeLesson(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: ObservationInput | null, carried: Omit<LessonObservation, "lessonId">[] = []): Promise<{ lesson: Lesson; project: Project }> {
  const { record } = await findLesson(stores, ctx, id);
  const observations: LessonObservation[] = carried.map((o) => ({ ...o, lessonId: record.id }));
  if (input !== null) observations.push(await newObservation(deps, stores, ctx, record, input));
  const now = deps.clock.now();
  const r = await mutate(stores, ctx, id, async (lesson, project) => {
    if (project.state === "archived") throw projectArchived(project.id);
    if (lesson.status === "superseded") throw new DomainError("SVC_RESOURCE_CONFLICT", "The lesson is superseded; observe the lesson that superseded it.", { reason: "superseded", superseded_by_id: lesson.supersededById });
    const sessions = observations.flatMap((o) => (o.buildSessionId === null ? [] : [o.buildSessionId]));
    const distinct = await stores.lessons.distinctSessions({ workspaceId: lesson.workspaceId, lessonId: lesson.id, plus: sessions });
    return { ...withObservations(lesson, observations, distinct), updatedAt: now };
  });
  for (const observation of observations) await stores.lessons.addObservation({ observation });
  await recordChange(deps, stores, ctx, { projectId: r.after.projectId, subjectType: "lesson", subjectId: r.after.id, eventType: "observed", oldValue: { observation_count: r.before.observationCount }, newValue: { observation_count: r.after.observationCount, distinct_session_count: r.after.distinctSessionCount }, buildSessionId: observations[observations.length - 1]?.buildSessionId ?? null, at: now });
  return { lesson: r.after, project: r.project };
}

/** What POST /lessons/{id}/status takes. */
export interface LessonStatusInput {
  status: "active" | "retired" | "superseded";
  reason: string;
  superseded_by_id?: string;
}

/**
 * Moves a lesson between statuses: active <-> retired; active or retired -> superseded (by an
 * active lesson of the same project, not itself; terminal).
 * @throws DomainError SVC_MALFORMED_REQUEST, SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT.
 */
export async function setLessonStatus(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: LessonStatusInput): Promise<{ lesson: Lesson; project: Project }> {
  await findLesson(stores, ctx, id);
  const reason = checkTitle(input.reason, "reason", LESSON_LIMITS.reasonMax);
  const now = deps.clock.now();
  let target: Lesson | null = null;
  if (input.status === "superseded") {
    if (input.superseded_by_id === undefined) throw malformed("superseded_by_id is required to supersede a lesson.", { field: "superseded_by_id" });
    if (input.superseded_by_id === id) throw malformed("A lesson cannot supersede itself.", { field: "superseded_by_id" });
    target = (await findLesson(stores, ctx, input.superseded_by_id).catch(() => null))?.record ?? null;
  }
  const r = await mutate(stores, ctx, id, (lesson, project) => {
    if (project.state === "archived") throw projectArchived(project.id);
    if (lesson.status === "superseded") throw new DomainError("SVC_RESOURCE_CONFLICT", "A superseded lesson stays superseded.", { reason: "terminal", status: lesson.status });
    if (input.status === "superseded") {
      if (target === null || target.projectId !== lesson.projectId) throw new DomainError("SVC_RESOURCE_NOT_FOUND", "superseded_by_id names no lesson of this project.", { resource: "Lesson", field: "superseded_by_id" });
      if (target.status !== "active") throw new DomainError("SVC_RESOURCE_CONFLICT", "A lesson can only be superseded by an active lesson.", { reason: "target_not_active", status: target.status });
      return { ...lesson, status: "superseded", supersededById: target.id, statusReason: reason, updatedAt: now };
    }
    const from = input.status === "retired" ? "active" : "retired";
    if (lesson.status !== from) throw new DomainError("SVC_RESOURCE_CONFLICT", `Only a ${from} lesson can become ${input.status}.`, { reason: "wrong_status", status: lesson.status });
    return { ...lesson, status: input.status, statusReason: reason, updatedAt: now };
  });
  await recordChange(deps, stores, ctx, { projectId: r.after.projectId, subjectType: "lesson", subjectId: r.after.id, eventType: "status_changed", oldValue: { status: r.before.status }, newValue: { status: r.after.status, reason, superseded_by_id: r.after.supersededById }, at: now });
  return { lesson: r.after, project: r.project };
}

/** Deletes a lesson (404 from then on; its slug is free again). 409 while an active rule derives from it. */
export async function deleteLesson(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string): Promise<{ lesson: Lesson }> {
  const now = deps.clock.now();
  const r = await mutate(stores, ctx, id, async (lesson, project) => {
    if (project.state === "archived") throw projectArchived(project.id);
    const rules = await stores.rules.countActiveForLesson({ workspaceId: lesson.workspaceId, lessonId: lesson.id });
    if (rules > 0) throw new DomainError("SVC_RESOURCE_CONFLICT", "Active rules derive from this lesson; archive them first.", { reason: "has_active_rules", active_rules: rules });
    return { ...lesson, deletedAt: now, updatedAt: now };
  });
  await recordChange(deps, stores, ctx, { projectId: r.after.projectId, subjectType: "lesson", subjectId: r.after.id, eventType: "deleted", oldValue: { slug: r.before.slug }, newValue: null, at: now });
  return { lesson: r.after };
}

/** The wire form of an observation. */
export function observationView(o: LessonObservation) {
  return { id: o.id, build_session_id: o.buildSessionId, note: o.note, evidence: o.evidence, at: o.at.toISOString(), by: { ai_account_id: o.by.aiAccountId, friendly_name: o.by.friendlyName } };
}

/** The wire form of a lesson. */
export function lessonView(l: Lesson) {
  return {
    id: l.id,
    project_id: l.projectId,
    slug: l.slug,
    title: l.title,
    body_md: l.bodyMd,
    why_md: l.whyMd,
    tags: l.tags,
    status: l.status,
    superseded_by_id: l.supersededById,
    status_reason: l.statusReason,
    observation_count: l.observationCount,
    distinct_session_count: l.distinctSessionCount,
    first_observed_at: l.firstObservedAt?.toISOString() ?? null,
    last_observed_at: l.lastObservedAt?.toISOString() ?? null,
    source_candidate_id: l.sourceCandidateId,
    source: l.source,
    version: l.version,
    created_at: l.createdAt.toISOString(),
    updated_at: l.updatedAt.toISOString(),
    created_by: { ai_account_id: l.createdBy.aiAccountId, friendly_name: l.createdBy.friendlyName },
  };
}
