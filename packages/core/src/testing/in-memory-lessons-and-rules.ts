import type { LessonCandidateStore, LessonStore, ReplaceResult, RuleStore } from "../ports.ts";
import { CANDIDATE_STATUSES, DETECTORS } from "../session-state/lesson-candidates/lesson-candidate.ts";
import { LESSON_STATUSES } from "../session-state/lessons/lesson.ts";
import type { CandidateFilters, CandidateStatus, Detector, LessonCandidate } from "../session-state/lesson-candidates/lesson-candidate.ts";
import type { Lesson, LessonFilters, LessonObservation, LessonSort, LessonStatus } from "../session-state/lessons/lesson.ts";
import type { Rule, RuleFilters } from "../session-state/rules/rule.ts";
import { tokenize } from "../session-state/text/tokens.ts";
import { InMemoryTable, type InMemoryTransaction } from "./in-memory-transaction.ts";

/** The rows behind the in-memory lesson, candidate and rule stores. */
export class InMemoryLearningTables {
  /** Keyed by `workspaceId/lessonId`. */
  readonly lessons = new InMemoryTable<Lesson>();
  /** Keyed by `workspaceId/observationId`. */
  readonly observations = new InMemoryTable<LessonObservation>();
  /** Keyed by `workspaceId/candidateId`. */
  readonly candidates = new InMemoryTable<LessonCandidate>();
  /** Keyed by `workspaceId/ruleId`. */
  readonly rules = new InMemoryTable<Rule>();
}

const byId = <T extends { id: string }>(a: T, b: T) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
const desc = (a: Date | null, b: Date | null) => (a === null ? (b === null ? 0 : 1) : b === null ? -1 : b.getTime() - a.getTime());

/** A compare-and-set replace on an in-memory table. */
function casReplace<T extends { workspaceId: string; id: string; version: number }>(table: InMemoryTable<T>, tx: InMemoryTransaction | null, next: T, expectedVersion: number, guard: (current: T) => boolean = () => true): ReplaceResult {
  const key = `${next.workspaceId}/${next.id}`;
  const current = table.get(key);
  if (current === undefined || current.version !== expectedVersion || !guard(current)) return { kind: "conflict" };
  table.set(tx, key, next);
  return { kind: "replaced" };
}

/** In-memory LessonStore. */
export class InMemoryLessonStore implements LessonStore {
  constructor(
    private readonly tables: InMemoryLearningTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  private live(workspaceId: string, projectId: string): Lesson[] {
    return this.tables.lessons.values().filter((l) => l.workspaceId === workspaceId && l.projectId === projectId && l.deletedAt === null);
  }

  async insert(p: { lesson: Lesson }): Promise<{ kind: "created" } | { kind: "slug_taken"; existingId: string }> {
    const holder = this.live(p.lesson.workspaceId, p.lesson.projectId).find((l) => l.slug === p.lesson.slug);
    if (holder !== undefined) return { kind: "slug_taken", existingId: holder.id };
    this.tables.lessons.set(this.tx, `${p.lesson.workspaceId}/${p.lesson.id}`, p.lesson);
    return { kind: "created" };
  }

  async find(p: { workspaceId: string; id: string }): Promise<Lesson | null> {
    return this.tables.lessons.get(`${p.workspaceId}/${p.id}`) ?? null;
  }

  async findBySlug(p: { workspaceId: string; projectId: string; slug: string }): Promise<Lesson | null> {
    return this.live(p.workspaceId, p.projectId).find((l) => l.slug === p.slug) ?? null;
  }

  async replace(p: { lesson: Lesson; expectedVersion: number }): Promise<ReplaceResult> {
    return casReplace(this.tables.lessons, this.tx, p.lesson, p.expectedVersion);
  }

  async list(p: { workspaceId: string; projectId: string; filters: LessonFilters; sort: LessonSort; offset: number; limit: number }): Promise<Lesson[]> {
    const f = p.filters;
    const terms = f.q === null ? [] : tokenize(f.q);
    return this.live(p.workspaceId, p.projectId)
      .filter((l) => (f.status === null || l.status === f.status) && (f.tag === null || l.tags.includes(f.tag)) && (terms.length === 0 || terms.every((t) => tokenize(`${l.title} ${l.bodyMd} ${l.whyMd} ${l.tags.join(" ")}`).includes(t))))
      .sort((a, b) => (p.sort === "observation_count" ? b.observationCount - a.observationCount : desc(a.lastObservedAt, b.lastObservedAt)) || byId(a, b))
      .slice(p.offset, p.offset + p.limit + 1);
  }

  async addObservation(p: { observation: LessonObservation }): Promise<void> {
    this.tables.observations.set(this.tx, `${p.observation.workspaceId}/${p.observation.id}`, p.observation);
  }

  private observationsOf(workspaceId: string, lessonId: string): LessonObservation[] {
    return this.tables.observations.values().filter((o) => o.workspaceId === workspaceId && o.lessonId === lessonId);
  }

  async observations(p: { workspaceId: string; lessonId: string; limit: number }): Promise<LessonObservation[]> {
    return this.observationsOf(p.workspaceId, p.lessonId)
      .sort((a, b) => b.at.getTime() - a.at.getTime() || byId(b, a))
      .slice(0, p.limit);
  }

  async distinctSessions(p: { workspaceId: string; lessonId: string; plus: readonly string[] }): Promise<number> {
    return new Set([...this.observationsOf(p.workspaceId, p.lessonId).flatMap((o) => (o.buildSessionId === null ? [] : [o.buildSessionId])), ...p.plus]).size;
  }

  async countByStatus(p: { workspaceId: string; projectId: string }): Promise<Record<LessonStatus, number>> {
    const out = Object.fromEntries(LESSON_STATUSES.map((s) => [s, 0])) as Record<LessonStatus, number>;
    for (const l of this.live(p.workspaceId, p.projectId)) out[l.status]++;
    return out;
  }
}

/** In-memory LessonCandidateStore. */
export class InMemoryLessonCandidateStore implements LessonCandidateStore {
  constructor(
    private readonly tables: InMemoryLearningTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  private of(workspaceId: string, projectId: string): LessonCandidate[] {
    return this.tables.candidates.values().filter((c) => c.workspaceId === workspaceId && c.projectId === projectId);
  }

  async insert(p: { candidate: LessonCandidate }): Promise<{ kind: "created" } | { kind: "fingerprint_taken"; existingId: string }> {
    const c = p.candidate;
    const holder = c.status === "pending" ? this.of(c.workspaceId, c.projectId).find((x) => x.status === "pending" && x.fingerprint === c.fingerprint) : undefined;
    if (holder !== undefined) return { kind: "fingerprint_taken", existingId: holder.id };
    this.tables.candidates.set(this.tx, `${c.workspaceId}/${c.id}`, c);
    return { kind: "created" };
  }

  async find(p: { workspaceId: string; id: string }): Promise<LessonCandidate | null> {
    return this.tables.candidates.get(`${p.workspaceId}/${p.id}`) ?? null;
  }

  async replace(p: { candidate: LessonCandidate; expectedVersion: number }): Promise<ReplaceResult> {
    return casReplace(this.tables.candidates, this.tx, p.candidate, p.expectedVersion);
  }

  async list(p: { workspaceId: string; projectId: string; filters: CandidateFilters; offset: number; limit: number }): Promise<LessonCandidate[]> {
    const f = p.filters;
    return this.of(p.workspaceId, p.projectId)
      .filter((c) => (f.status === null || c.status === f.status) && (f.detector === null || c.detector === f.detector) && (f.ready === null || c.ready === f.ready) && (f.minScore === null || c.score >= f.minScore))
      .sort((a, b) => b.score - a.score || byId(a, b))
      .slice(p.offset, p.offset + p.limit + 1);
  }

  async all(p: { workspaceId: string; projectId: string; statuses: readonly CandidateStatus[]; limit: number }): Promise<LessonCandidate[]> {
    return this.of(p.workspaceId, p.projectId)
      .filter((c) => p.statuses.includes(c.status))
      .sort(byId)
      .slice(0, p.limit);
  }

  async evidenceKeys(p: { workspaceId: string; projectId: string }): Promise<string[]> {
    return this.of(p.workspaceId, p.projectId).flatMap((c) => c.evidence.map((e) => `${c.detector}|${e.kind}|${e.ref_id}`));
  }

  async counts(p: { workspaceId: string; projectId: string }): Promise<{ byStatus: Record<CandidateStatus, number>; byDetector: Record<Detector, number> }> {
    const byStatus = Object.fromEntries(CANDIDATE_STATUSES.map((s) => [s, 0])) as Record<CandidateStatus, number>;
    const byDetector = Object.fromEntries(DETECTORS.map((d) => [d, 0])) as Record<Detector, number>;
    for (const c of this.of(p.workspaceId, p.projectId)) {
      byStatus[c.status]++;
      if (c.status === "pending") byDetector[c.detector]++;
    }
    return { byStatus, byDetector };
  }
}

/** In-memory RuleStore. */
export class InMemoryRuleStore implements RuleStore {
  constructor(
    private readonly tables: InMemoryLearningTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  private of(workspaceId: string, projectId: string): Rule[] {
    return this.tables.rules.values().filter((r) => r.workspaceId === workspaceId && r.projectId === projectId);
  }

  async insert(p: { rule: Rule }): Promise<{ kind: "created" } | { kind: "slug_taken"; existingId: string }> {
    const r = p.rule;
    const holder = r.status === "active" ? this.of(r.workspaceId, r.projectId).find((x) => x.status === "active" && x.slug === r.slug) : undefined;
    if (holder !== undefined) return { kind: "slug_taken", existingId: holder.id };
    this.tables.rules.set(this.tx, `${r.workspaceId}/${r.id}`, r);
    return { kind: "created" };
  }

  async find(p: { workspaceId: string; id: string }): Promise<Rule | null> {
    return this.tables.rules.get(`${p.workspaceId}/${p.id}`) ?? null;
  }

  async findBySlug(p: { workspaceId: string; projectId: string; slug: string }): Promise<Rule | null> {
    const all = this.of(p.workspaceId, p.projectId).filter((r) => r.slug === p.slug);
    return all.find((r) => r.status === "active") ?? all.sort((a, b) => byId(b, a))[0] ?? null;
  }

  async replace(p: { rule: Rule; expectedVersion: number }): Promise<ReplaceResult> {
    return casReplace(this.tables.rules, this.tx, p.rule, p.expectedVersion, (current) => current.status === "active");
  }

  async list(p: { workspaceId: string; projectId: string; filters: RuleFilters; offset: number; limit: number | null }): Promise<Rule[]> {
    const f = p.filters;
    const rows = this.of(p.workspaceId, p.projectId)
      .filter((r) => (f.status === null || r.status === f.status) && (f.level === null || r.level === f.level) && (f.language === null || r.triggers.languages.includes(f.language)) && (f.sourceLessonId === null || r.sourceLessonId === f.sourceLessonId))
      .sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : byId(a, b)));
    return p.limit === null ? rows.slice(p.offset) : rows.slice(p.offset, p.offset + p.limit + 1);
  }

  async active(p: { workspaceId: string; projectId: string }): Promise<Rule[]> {
    return this.list({ ...p, filters: { status: "active", level: null, language: null, sourceLessonId: null }, offset: 0, limit: null });
  }

  async countActiveForLesson(p: { workspaceId: string; lessonId: string }): Promise<number> {
    return this.tables.rules.values().filter((r) => r.workspaceId === p.workspaceId && r.sourceLessonId === p.lessonId && r.status === "active").length;
  }
}
