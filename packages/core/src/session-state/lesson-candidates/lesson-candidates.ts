import type { CoreDeps } from "../../deps.ts";
import { DomainError, malformed } from "../../errors.ts";
import type { OperationContext } from "../../operation.ts";
import type { Stores } from "../../ports.ts";
import { DAY_MS } from "../../time/duration.ts";
import { NO_BACKLOG_FILTERS } from "../backlog/backlog.ts";
import { sessionOfChange } from "../conventions/session-of-change.ts";
import { DETECTOR_FUNCTIONS, SAME_THING, STRONG_DETECTORS, fingerprintOf, type DetectionSnapshot, type Proposal } from "./candidate-detectors.ts";
import { checkTitle, parseTimestamp } from "../conventions/fields.ts";
import { DETECTORS, type CandidateEvidence, type Detector, type LessonCandidate } from "./lesson-candidate.ts";
import { EVIDENCE_KINDS, type EvidenceKind, type Lesson, type LessonObservation } from "../lessons/lesson.ts";
import { createLesson, findLesson, observeLesson, LESSON_LIMITS } from "../lessons/lessons.ts";
import type { BacklogItem } from "../backlog/backlog-item.ts";
import type { DecisionEntry } from "../decision-log/decision-entry.ts";
import type { Project } from "../projects/project.ts";
import { mutateWithProject } from "../conventions/record-mutation.ts";
import { findInProject, projectArchived, resolveProject } from "../conventions/resolve-project.ts";
import { actorOf, recordChange } from "../conventions/record-history.ts";
import { SimilarityIndex, tokenOrder } from "../text/similarity-index.ts";
import { keywordSet } from "../text/tokens.ts";

/** How far back detect looks without `since`, and at most. */
export const DETECT_DEFAULT_WINDOW_MS = 30 * DAY_MS;
/** Records a detection run reads per kind at most (sessions, corrections, items, events). */
const SCAN_MAX = 2_000;
const PAGE = 100;

/**
 * The candidate as the caller may see it, with its project.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND.
 */
export async function findCandidate(stores: Stores, ctx: Pick<OperationContext, "principal">, id: string): Promise<{ record: LessonCandidate; project: Project }> {
  return findInProject(stores, ctx, id, "Lesson candidate", (p) => stores.candidates.find(p));
}

/**
 * The active lesson a keyword set resembles most (Jaccard >= 0.6; ties by id), or null: the
 * lessons' keywords are read once and indexed, so scoring many candidates stays linear.
 */
export function lessonSuggester(activeLessons: readonly Lesson[]): (keywords: readonly string[]) => string | null {
  const words = activeLessons.map((l) => keywordSet(`${l.title} ${l.bodyMd}`));
  const index = new SimilarityIndex<number>(SAME_THING, tokenOrder(words));
  words.forEach((w, i) => index.add(i, w));
  return (keywords) => {
    const best = index
      .similar(keywords)
      .map(({ id, similarity }) => ({ l: activeLessons[id], s: similarity }))
      .sort((a, b) => b.s - a.s || ((a.l?.id ?? "") < (b.l?.id ?? "") ? -1 : 1))[0];
    return best?.l?.id ?? null;
  };
}

/** A candidate's figures recomputed from its evidence: counts, score, readiness, and the active lesson it resembles (`suggest`: lessonSuggester). */
export function scoreCandidate(c: LessonCandidate, project: Pick<Project, "settings">, suggest: (keywords: readonly string[]) => string | null): LessonCandidate {
  const sessions = new Set(c.evidence.map((e) => e.build_session_id).filter((s) => s !== null)).size;
  const strong = STRONG_DETECTORS.includes(c.detector);
  return {
    ...c,
    observationCount: c.evidence.length,
    distinctSessionCount: sessions,
    score: 2 * sessions + c.evidence.length + (strong ? 3 : 1),
    ready: strong || sessions >= project.settings.candidate_min_sessions,
    suggestedLessonId: suggest(c.keywords),
  };
}

const evidenceKey = (detector: string, e: Pick<CandidateEvidence, "kind" | "ref_id">) => `${detector}|${e.kind}|${e.ref_id}`;

async function pages<T>(fetch: (offset: number) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let offset = 0; out.length < SCAN_MAX; offset += PAGE) {
    const rows = await fetch(offset);
    out.push(...rows.slice(0, PAGE));
    if (rows.length <= PAGE) break;
  }
  return out;
}

/** Reads what the detectors look at in the window. */
async function snapshot(stores: Stores, project: Project, since: Date, until: Date): Promise<DetectionSnapshot> {
  const at = { workspaceId: project.workspaceId, projectId: project.id };
  const sessions = await stores.buildSessions.touchedBetween({ ...at, since, until, limit: SCAN_MAX });
  const correctionRows: DecisionEntry[] = [];
  let after: string | null = null;
  for (;;) {
    const rows = await stores.decisions.list({ ...at, filters: { status: null, kind: "correction", tag: null, authorId: null, buildSessionId: null, since, until, file: null }, after, limit: PAGE });
    correctionRows.push(...rows.slice(0, PAGE).map((r) => r.entry));
    if (rows.length <= PAGE || correctionRows.length >= SCAN_MAX) break;
    after = rows[PAGE - 1]?.entry.id ?? null;
  }
  const roots = new Map<string, DecisionEntry>();
  for (const c of correctionRows) {
    if (!roots.has(c.chainRootId)) {
      const root = await stores.decisions.find({ workspaceId: project.workspaceId, id: c.chainRootId });
      if (root !== null) roots.set(c.chainRootId, root.entry);
    }
  }
  const newItems = (await pages((offset) => stores.backlog.search({ ...at, filters: { ...NO_BACKLOG_FILTERS, createdAfter: since }, sort: "oldest", offset, limit: PAGE }))).filter((i) => i.createdAt.getTime() <= until.getTime());
  const resolvedItems = await pages((offset) => stores.backlog.search({ ...at, filters: { ...NO_BACKLOG_FILTERS, statuses: ["resolved"] }, sort: "oldest", offset, limit: PAGE }));
  const events = await stores.recordEvents.listByType({ ...at, subjectType: "backlog_item", eventTypes: ["reassigned", "staleness_acknowledged"], since, until, limit: SCAN_MAX });
  const items = new Map<string, BacklogItem>();
  for (const e of events) {
    if (items.has(e.subjectId)) continue;
    const item = await stores.backlog.find({ workspaceId: project.workspaceId, id: e.subjectId });
    if (item !== null) items.set(item.id, item);
  }
  return {
    since,
    until,
    sessions,
    corrections: correctionRows.flatMap((correction) => {
      const root = roots.get(correction.chainRootId);
      return root === undefined ? [] : [{ correction, root }];
    }),
    newItems,
    resolvedItems,
    churn: events.flatMap((event) => {
      const item = items.get(event.subjectId);
      return item === undefined ? [] : [{ event, item }];
    }),
  };
}

/** What POST /lesson-candidates/detect takes. */
export interface DetectInput {
  project_id?: string;
  since?: string;
  detectors?: string[];
  dry_run?: boolean;
}

/** What a detection run did. */
export interface DetectResult {
  project: Project;
  window: { since: Date; until: Date };
  created: LessonCandidate[];
  updated: LessonCandidate[];
  unchanged: number;
}

/**
 * Runs the detectors over the project's records of the window (`since`, default 30 days back,
 * to now) and files what they find: evidence already counted (by detector, kind and ref id,
 * whatever its candidate's status) is dropped, so running it twice over the same window adds
 * nothing; new evidence joins the pending candidate with the same fingerprint (or, for
 * learnings and notes, a similar one), else a new candidate is created. `unchanged` counts
 * proposals with nothing new. With dry_run nothing is written. Never edits lessons.
 * @throws DomainError SVC_MALFORMED_REQUEST, SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT.
 */
export async function detectCandidates(deps: CoreDeps, stores: Stores, ctx: OperationContext, input: DetectInput): Promise<DetectResult> {
  const project = await resolveProject(stores, ctx, input.project_id, { forWrite: input.dry_run !== true });
  const until = deps.clock.now();
  const since = parseTimestamp(input.since, "since") ?? new Date(until.getTime() - DETECT_DEFAULT_WINDOW_MS);
  if (since.getTime() > until.getTime()) throw malformed("since must not be in the future.", { field: "since" });
  const detectors = [...new Set(input.detectors ?? DETECTORS)];
  for (const d of detectors) if (!(DETECTORS as readonly string[]).includes(d)) throw malformed(`detectors must be a subset of ${DETECTORS.join(", ")}.`, { field: "detectors", value: d });
  const snap = await snapshot(stores, project, since, until);
  const at = { workspaceId: project.workspaceId, projectId: project.id };
  const known = new Set(await stores.candidates.evidenceKeys(at));
  const pending = await stores.candidates.all({ ...at, statuses: ["pending"], limit: 10_000 });
  const suggest = lessonSuggester(await stores.lessons.list({ ...at, filters: { status: "active", tag: null, q: null }, sort: "last_observed_at", offset: 0, limit: 1_000 }));
  const created = new Map<string, LessonCandidate>();
  const updated = new Map<string, { before: LessonCandidate; after: LessonCandidate }>();
  let unchanged = 0;
  const buildSessionId = await sessionOfChange(stores, ctx, project.id, null);

  const proposals = (detectors as Detector[]).flatMap((detector) => DETECTOR_FUNCTIONS[detector](snap));
  const targets = new CandidateTargets(pending, tokenOrder([...pending.map((c) => c.keywords), ...proposals.map((p) => p.keywords)]));
  for (const proposal of proposals) {
    const detector = proposal.detector;
    const fresh = proposal.evidence.filter((e) => !known.has(evidenceKey(detector, e)));
    if (fresh.length === 0) {
      unchanged++;
      continue;
    }
    const target = targets.find(proposal);
    if (target === undefined && proposal.mergeOnly === true) continue;
    for (const e of fresh) known.add(evidenceKey(detector, e));
    const now = deps.clock.now();
    if (target === undefined) {
      const c = scoreCandidate(newCandidate(deps, ctx, project, proposal, fresh, now), project, suggest);
      created.set(c.id, c);
      targets.put(c);
      continue;
    }
    const next = scoreCandidate({ ...target, evidence: [...target.evidence, ...fresh], updatedAt: now }, project, suggest);
    targets.put(next);
    if (created.has(target.id)) created.set(target.id, next);
    else updated.set(target.id, { before: updated.get(target.id)?.before ?? target, after: next });
  }
  if (input.dry_run !== true) {
    for (const [id, c] of created) {
      const r = await stores.candidates.insert({ candidate: c });
      if (r.kind === "fingerprint_taken") throw new DomainError("SVC_RESOURCE_CONFLICT", "A concurrent detection filed the same candidate; run detect again.", { reason: "concurrent_write", existing_id: r.existingId });
      await recordChange(deps, stores, ctx, { projectId: project.id, subjectType: "lesson_candidate", subjectId: id, eventType: "detected", oldValue: null, newValue: { detector: c.detector, evidence: c.evidence.length, score: c.score }, buildSessionId, at: c.createdAt });
    }
    for (const [id, { before, after }] of updated) {
      const write = { ...after, version: before.version + 1 };
      if ((await stores.candidates.replace({ candidate: write, expectedVersion: before.version })).kind === "conflict") throw new DomainError("SVC_RESOURCE_CONFLICT", "A candidate changed during detection; run detect again.", { reason: "concurrent_write", candidate_id: id });
      updated.set(id, { before, after: write });
      await recordChange(deps, stores, ctx, { projectId: project.id, subjectType: "lesson_candidate", subjectId: id, eventType: "evidence_added", oldValue: { evidence: before.evidence.length }, newValue: { evidence: write.evidence.length, score: write.score }, buildSessionId, at: write.updatedAt });
    }
  }
  return { project, window: { since, until }, created: [...created.values()], updated: [...updated.values()].map((u) => u.after), unchanged };
}

/**
 * The pending candidates (stored, then created by the run) a proposal may join: the first with
 * its fingerprint, else, when the proposal merges by similarity, the most similar of its detector
 * (>= 0.6; ties by id). Looked up by fingerprint and through one similarity index per detector,
 * so a run stays linear in what it reads; a candidate's keywords never change, `put` replaces its
 * figures.
 */
class CandidateTargets {
  private readonly byId = new Map<string, LessonCandidate>();
  private readonly byFingerprint = new Map<string, string>();
  private readonly byDetector = new Map<string, SimilarityIndex<string>>();

  constructor(
    pending: readonly LessonCandidate[],
    private readonly order: ReadonlyMap<string, number>,
  ) {
    for (const c of pending) this.put(c);
  }

  put(c: LessonCandidate): void {
    if (c.status !== "pending") return;
    this.byId.set(c.id, c);
    if (!this.byFingerprint.has(c.fingerprint)) this.byFingerprint.set(c.fingerprint, c.id);
    let index = this.byDetector.get(c.detector);
    if (index === undefined) this.byDetector.set(c.detector, (index = new SimilarityIndex<string>(SAME_THING, this.order)));
    index.add(c.id, c.keywords);
  }

  find(p: Proposal): LessonCandidate | undefined {
    const same = this.byFingerprint.get(fingerprintOf(p.keywords));
    if (same !== undefined || !p.similarMerges) return same === undefined ? undefined : this.byId.get(same);
    const best = (this.byDetector.get(p.detector)?.similar(p.keywords) ?? []).sort((a, b) => b.similarity - a.similarity || (a.id < b.id ? -1 : 1))[0];
    return best === undefined ? undefined : this.byId.get(best.id);
  }
}

function newCandidate(deps: Pick<CoreDeps, "ids">, ctx: OperationContext, project: Project, p: Proposal, evidence: CandidateEvidence[], now: Date): LessonCandidate {
  return {
    workspaceId: project.workspaceId,
    id: deps.ids.next(),
    projectId: project.id,
    fingerprint: fingerprintOf(p.keywords),
    detector: p.detector,
    title: p.title,
    bodyMd: p.bodyMd,
    keywords: p.keywords,
    evidence,
    observationCount: 0,
    distinctSessionCount: 0,
    score: 0,
    ready: false,
    status: "pending",
    promotedLessonId: null,
    supersededBy: null,
    reason: null,
    suggestedLessonId: null,
    version: 1,
    createdAt: now,
    updatedAt: now,
    createdBy: actorOf(ctx),
  };
}

const mutate = (stores: Stores, ctx: OperationContext, id: string, decide: (c: LessonCandidate, p: Project) => LessonCandidate | Promise<LessonCandidate>) =>
  mutateWithProject(() => findCandidate(stores, ctx, id), decide, (next, expectedVersion) => stores.candidates.replace({ candidate: next, expectedVersion }));

function pendingOnly(c: LessonCandidate, project: Project): void {
  if (project.state === "archived") throw projectArchived(project.id);
  if (c.status !== "pending") throw new DomainError("SVC_RESOURCE_CONFLICT", `The candidate is ${c.status}; only pending candidates change.`, { reason: "not_pending", status: c.status });
}

async function candidateChange(deps: CoreDeps, stores: Stores, ctx: OperationContext, c: LessonCandidate, eventType: string, oldValue: Record<string, unknown>, newValue: Record<string, unknown>): Promise<void> {
  const buildSessionId = await sessionOfChange(stores, ctx, c.projectId, null);
  await recordChange(deps, stores, ctx, { projectId: c.projectId, subjectType: "lesson_candidate", subjectId: c.id, eventType, oldValue, newValue, buildSessionId, at: c.updatedAt });
}

/** An observation of a lesson made from a candidate's evidence. */
function observationOf(deps: Pick<CoreDeps, "ids">, ctx: OperationContext, c: LessonCandidate, e: CandidateEvidence): Omit<LessonObservation, "lessonId"> {
  const kind = (EVIDENCE_KINDS as readonly string[]).includes(e.kind) ? (e.kind as EvidenceKind) : e.kind === "backlog_event" ? "backlog" : null;
  return { workspaceId: c.workspaceId, id: deps.ids.next(), projectId: c.projectId, buildSessionId: e.build_session_id, note: e.excerpt.length > 0 ? e.excerpt : c.title, evidence: kind === null ? null : { kind, ref: e.ref_id }, at: new Date(e.observed_at), by: actorOf(ctx) };
}

/** What promote takes. */
export interface PromoteInput {
  slug?: string;
  title?: string;
  body_md?: string;
  into_lesson_id?: string;
}

/**
 * Promotes a pending candidate: a new lesson (title and body from the candidate unless given)
 * carrying its evidence as observations, or its evidence added to `into_lesson_id`'s lesson.
 */
export async function promoteCandidate(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: PromoteInput): Promise<{ candidate: LessonCandidate; lesson: Lesson }> {
  const { record, project } = await findCandidate(stores, ctx, id);
  pendingOnly(record, project);
  const carried = record.evidence.map((e) => observationOf(deps, ctx, record, e));
  let lesson: Lesson;
  if (input.into_lesson_id !== undefined) {
    const target = await findLesson(stores, ctx, input.into_lesson_id).catch(() => null);
    if (target === null || target.record.projectId !== record.projectId) throw new DomainError("SVC_RESOURCE_NOT_FOUND", "into_lesson_id names no lesson of the candidate's project.", { resource: "Lesson", field: "into_lesson_id" });
    lesson = (await observeLesson(deps, stores, ctx, target.record.id, null, carried)).lesson;
  } else {
    lesson = (await createLesson(deps, stores, ctx, { slug: input.slug, title: input.title ?? record.title, body_md: input.body_md ?? record.bodyMd }, { sourceCandidateId: record.id, observations: carried }, project)).lesson;
  }
  const now = deps.clock.now();
  const r = await mutate(stores, ctx, id, (c, p) => {
    pendingOnly(c, p);
    return { ...c, status: "promoted", promotedLessonId: lesson.id, updatedAt: now };
  });
  await candidateChange(deps, stores, ctx, r.after, "promoted", { status: "pending" }, { status: "promoted", lesson_id: lesson.id });
  return { candidate: r.after, lesson };
}

/** Rejects a pending candidate with a reason (its evidence stays counted: detect will not propose it again). */
export async function rejectCandidate(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: { reason: string }): Promise<LessonCandidate> {
  const reason = checkTitle(input.reason, "reason", LESSON_LIMITS.reasonMax);
  const now = deps.clock.now();
  const r = await mutate(stores, ctx, id, (c, p) => {
    pendingOnly(c, p);
    return { ...c, status: "rejected", reason, updatedAt: now };
  });
  await candidateChange(deps, stores, ctx, r.after, "rejected", { status: "pending" }, { status: "rejected", reason });
  return r.after;
}

/** Marks a pending candidate superseded by another candidate of the project (not itself) or a lesson of it. */
export async function supersedeCandidate(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: { candidate_id?: string; lesson_id?: string; reason: string }): Promise<LessonCandidate> {
  await findCandidate(stores, ctx, id);
  const reason = checkTitle(input.reason, "reason", LESSON_LIMITS.reasonMax);
  if ((input.candidate_id === undefined) === (input.lesson_id === undefined)) throw malformed("Name exactly one of candidate_id and lesson_id.", { field: "candidate_id" });
  if (input.candidate_id === id) throw malformed("A candidate cannot supersede itself.", { field: "candidate_id" });
  const target = input.candidate_id !== undefined ? await findCandidate(stores, ctx, input.candidate_id).catch(() => null) : await findLesson(stores, ctx, input.lesson_id as string).catch(() => null);
  const now = deps.clock.now();
  const r = await mutate(stores, ctx, id, (c, p) => {
    pendingOnly(c, p);
    if (target === null || target.record.projectId !== c.projectId) throw new DomainError("SVC_RESOURCE_NOT_FOUND", "The superseding record is not of the candidate's project.", { resource: input.candidate_id !== undefined ? "Lesson candidate" : "Lesson", field: input.candidate_id !== undefined ? "candidate_id" : "lesson_id" });
    return { ...c, status: "superseded", supersededBy: { candidate_id: input.candidate_id ?? null, lesson_id: input.lesson_id ?? null }, reason, updatedAt: now };
  });
  await candidateChange(deps, stores, ctx, r.after, "superseded", { status: "pending" }, { status: "superseded", ...r.after.supersededBy, reason });
  return r.after;
}

/** Adds an observation to a pending candidate as evidence (kind `manual` unless evidence names one). */
export async function observeCandidate(deps: CoreDeps, stores: Stores, ctx: OperationContext, id: string, input: { note: string; build_session_id?: string; evidence?: { kind: string; ref: string } }): Promise<LessonCandidate> {
  const note = checkTitle(input.note, "note", LESSON_LIMITS.noteMax);
  const { record } = await findCandidate(stores, ctx, id);
  if (input.evidence !== undefined && !(EVIDENCE_KINDS as readonly string[]).includes(input.evidence.kind)) throw malformed(`evidence.kind must be one of ${EVIDENCE_KINDS.join(", ")}.`, { field: "evidence.kind" });
  const buildSessionId = await sessionOfChange(stores, ctx, record.projectId, input.build_session_id);
  const now = deps.clock.now();
  const ev: CandidateEvidence = { kind: input.evidence?.kind ?? "manual", ref_id: input.evidence === undefined ? deps.ids.next() : checkTitle(input.evidence.ref, "evidence.ref", LESSON_LIMITS.evidenceRefMax), build_session_id: buildSessionId, excerpt: note.slice(0, 500), observed_at: now.toISOString() };
  const suggest = lessonSuggester(await stores.lessons.list({ workspaceId: record.workspaceId, projectId: record.projectId, filters: { status: "active", tag: null, q: null }, sort: "last_observed_at", offset: 0, limit: 1_000 }));
  const r = await mutate(stores, ctx, id, (c, p) => {
    pendingOnly(c, p);
    if (c.evidence.some((e) => e.kind === ev.kind && e.ref_id === ev.ref_id)) throw new DomainError("SVC_RESOURCE_CONFLICT", "The candidate already has that evidence.", { reason: "evidence_exists" });
    return scoreCandidate({ ...c, evidence: [...c.evidence, ev], updatedAt: now }, p, suggest);
  });
  await candidateChange(deps, stores, ctx, r.after, "evidence_added", { evidence: r.before.evidence.length }, { evidence: r.after.evidence.length, score: r.after.score });
  return r.after;
}

/** The wire form of a candidate. */
export function candidateView(c: LessonCandidate) {
  return {
    id: c.id,
    project_id: c.projectId,
    fingerprint: c.fingerprint,
    detector: c.detector,
    title: c.title,
    body_md: c.bodyMd,
    keywords: c.keywords,
    evidence: c.evidence,
    observation_count: c.observationCount,
    distinct_session_count: c.distinctSessionCount,
    score: c.score,
    ready: c.ready,
    status: c.status,
    promoted_lesson_id: c.promotedLessonId,
    superseded_by: c.supersededBy,
    reason: c.reason,
    suggested_lesson_id: c.suggestedLessonId,
    version: c.version,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
    created_by: { ai_account_id: c.createdBy.aiAccountId, friendly_name: c.createdBy.friendlyName },
  };
}
