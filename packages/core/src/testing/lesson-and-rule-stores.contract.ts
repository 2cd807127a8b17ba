import { beforeEach, describe, expect, it } from "vitest";
import type { Lesson, LessonObservation } from "../session-state/lessons/lesson.ts";
import type { LessonCandidate } from "../session-state/lesson-candidates/lesson-candidate.ts";
import type { Rule } from "../session-state/rules/rule.ts";
import { fixtureId } from "./access-fixtures.ts";
import { seedWorkspace, type MessagingHarness, type MessagingHarnessFactory, type SeededWorkspace } from "./messaging-harness.ts";
import { makeBuildSession, makeProject } from "./session-state-stores.contract.ts";

const AT = new Date("2026-03-02T10:00:00.000Z");
const BY = { aiAccountId: "01J0000000000000000000AUTH", friendlyName: "author" };

/** A lesson for store tests (active). */
export function makeLesson(p: { workspaceId: string; projectId: string }, overrides: Partial<Lesson> = {}): Lesson {
  const id = overrides.id ?? fixtureId();
  return {
    workspaceId: p.workspaceId, id, projectId: p.projectId, slug: `l-${id.toLowerCase()}`, title: "Pin versions", bodyMd: "Do: pin them.", whyMd: "", tags: [], status: "active", supersededById: null, statusReason: null,
    observationCount: 0, distinctSessionCount: 0, firstObservedAt: null, lastObservedAt: null, sourceCandidateId: null, source: null, deletedAt: null, version: 1, createdAt: AT, updatedAt: AT, createdBy: BY, ...overrides,
  };
}

/** A pending candidate for store tests. */
export function makeCandidate(p: { workspaceId: string; projectId: string }, overrides: Partial<LessonCandidate> = {}): LessonCandidate {
  return {
    workspaceId: p.workspaceId, id: fixtureId(), projectId: p.projectId, fingerprint: fixtureId(), detector: "session_learning", title: "t", bodyMd: "b", keywords: ["b"], evidence: [], observationCount: 0,
    distinctSessionCount: 0, score: 1, ready: false, status: "pending", promotedLessonId: null, supersededBy: null, reason: null, suggestedLessonId: null, version: 1, createdAt: AT, updatedAt: AT, createdBy: BY, ...overrides,
  };
}

/** An active rule for store tests. */
export function makeRule(p: { workspaceId: string; projectId: string; lessonId: string }, overrides: Partial<Rule> = {}): Rule {
  const id = overrides.id ?? fixtureId();
  return {
    workspaceId: p.workspaceId, id, projectId: p.projectId, slug: `r-${id.toLowerCase()}`, title: "Rule", bodyMd: "Do it.", level: "should", sourceLessonId: p.lessonId, supersedesRuleId: null, alwaysApply: false,
    triggers: { paths: ["src/**"], operations: [], languages: [], code_patterns: [], project_attributes: {} }, status: "active", archivedReason: null, archivedAt: null, enrichment: null, version: 1, createdAt: AT, updatedAt: AT, createdBy: BY, ...overrides,
  };
}

/**
 * The contract of the lesson, candidate and rule stores (in memory, PostgreSQL), and of the
 * record-event and build-session reads the detectors use: uniqueness among live records,
 * compare-and-set, filters and orders, every read scoped by workspace.
 */
export function describeLearningStoresContract(make: MessagingHarnessFactory): void {
  describe("lesson, candidate and rule stores contract", () => {
    let h: MessagingHarness;
    let w: SeededWorkspace;
    let projectId: string;
    beforeEach(async () => {
      h = await make();
      w = await seedWorkspace(h.stores);
      const p = makeProject(w.workspace.id);
      await h.stores.projects.insert({ project: p });
      projectId = p.id;
    });
    const at = () => ({ workspaceId: w.workspace.id, projectId });

    it("lessons: a slug is unique among lessons not deleted; compare-and-set; other workspaces see nothing", async () => {
      const l = makeLesson(at(), { slug: "pin", tags: ["ops"], lastObservedAt: AT });
      expect(await h.stores.lessons.insert({ lesson: l })).toEqual({ kind: "created" });
      expect(await h.stores.lessons.find({ workspaceId: w.workspace.id, id: l.id })).toEqual(l);
      expect(await h.stores.lessons.insert({ lesson: makeLesson(at(), { slug: "pin" }) })).toEqual({ kind: "slug_taken", existingId: l.id });
      expect(await h.stores.lessons.replace({ lesson: { ...l, version: 2 }, expectedVersion: 2 })).toEqual({ kind: "conflict" });
      expect(await h.stores.lessons.replace({ lesson: { ...l, deletedAt: AT, version: 2 }, expectedVersion: 1 })).toEqual({ kind: "replaced" });
      expect(await h.stores.lessons.findBySlug({ ...at(), slug: "pin" })).toBeNull();
      expect((await h.stores.lessons.insert({ lesson: makeLesson(at(), { slug: "pin" }) })).kind).toBe("created");
      const other = await seedWorkspace(h.stores);
      expect(await h.stores.lessons.find({ workspaceId: other.workspace.id, id: l.id })).toBeNull();
    });

    it("lessons list: status, tag, words; by last observation (nulls last) or count; paged by offset; counts by status", async () => {
      const a = makeLesson(at(), { title: "Migrations need locks", tags: ["db"], lastObservedAt: new Date(AT.getTime() - 1000), observationCount: 5 });
      const b = makeLesson(at(), { title: "Pin versions", status: "retired", lastObservedAt: AT, observationCount: 1 });
      const c = makeLesson(at(), { title: "Never observed" });
      for (const l of [a, b, c]) await h.stores.lessons.insert({ lesson: l });
      const list = (sort: "last_observed_at" | "observation_count", f: Partial<{ status: "active" | "retired"; tag: string; q: string }> = {}, offset = 0, limit = 10) =>
        h.stores.lessons.list({ ...at(), filters: { status: f.status ?? null, tag: f.tag ?? null, q: f.q ?? null }, sort, offset, limit }).then((r) => r.map((l) => l.id));
      expect(await list("last_observed_at")).toEqual([b.id, a.id, c.id]);
      expect(await list("observation_count")).toEqual([a.id, b.id, c.id]);
      expect(await list("last_observed_at", { status: "retired" })).toEqual([b.id]);
      expect(await list("last_observed_at", { tag: "db" })).toEqual([a.id]);
      expect(await list("last_observed_at", { q: "migrations" })).toEqual([a.id]);
      expect(await list("last_observed_at", {}, 1, 1)).toEqual([a.id, c.id]);
      expect(await h.stores.lessons.countByStatus(at())).toEqual({ active: 2, retired: 1, superseded: 0 });
    });

    it("observations: newest first, distinct sessions counted with the sessions named", async () => {
      const l = makeLesson(at());
      await h.stores.lessons.insert({ lesson: l });
      const obs = (session: string | null, ms: number): LessonObservation => ({ workspaceId: w.workspace.id, id: fixtureId(), projectId, lessonId: l.id, buildSessionId: session, note: `n${ms}`, evidence: null, at: new Date(AT.getTime() + ms), by: BY });
      for (const o of [obs("S1", 1), obs("S1", 2), obs(null, 3), obs("S2", 4)]) await h.stores.lessons.addObservation({ observation: o });
      expect((await h.stores.lessons.observations({ workspaceId: w.workspace.id, lessonId: l.id, limit: 2 })).map((o) => o.note)).toEqual(["n4", "n3"]);
      expect(await h.stores.lessons.distinctSessions({ workspaceId: w.workspace.id, lessonId: l.id, plus: [] })).toBe(2);
      expect(await h.stores.lessons.distinctSessions({ workspaceId: w.workspace.id, lessonId: l.id, plus: ["S2", "S3"] })).toBe(3);
    });

    it("candidates: a fingerprint is unique among pending ones; list by score; evidence keys of every status; counts", async () => {
      const ev = (ref: string) => ({ kind: "learning", ref_id: ref, build_session_id: null, excerpt: "x", observed_at: AT.toISOString() });
      const c1 = makeCandidate(at(), { fingerprint: "f1", score: 3, ready: true, evidence: [ev("a")] });
      expect(await h.stores.candidates.insert({ candidate: c1 })).toEqual({ kind: "created" });
      expect(await h.stores.candidates.insert({ candidate: makeCandidate(at(), { fingerprint: "f1" }) })).toEqual({ kind: "fingerprint_taken", existingId: c1.id });
      expect(await h.stores.candidates.replace({ candidate: { ...c1, status: "rejected", version: 2 }, expectedVersion: 1 })).toEqual({ kind: "replaced" });
      const c2 = makeCandidate(at(), { fingerprint: "f1", score: 5, detector: "repeated_note", evidence: [ev("b")] });
      expect((await h.stores.candidates.insert({ candidate: c2 })).kind).toBe("created");
      expect(await h.stores.candidates.find({ workspaceId: w.workspace.id, id: c2.id })).toEqual(c2);
      const list = await h.stores.candidates.list({ ...at(), filters: { status: null, detector: null, ready: null, minScore: null }, offset: 0, limit: 10 });
      expect(list.map((c) => c.id)).toEqual([c2.id, c1.id]);
      expect((await h.stores.candidates.list({ ...at(), filters: { status: "pending", detector: null, ready: null, minScore: 4 }, offset: 0, limit: 10 })).map((c) => c.id)).toEqual([c2.id]);
      expect((await h.stores.candidates.all({ ...at(), statuses: ["rejected"], limit: 10 })).map((c) => c.id)).toEqual([c1.id]);
      expect((await h.stores.candidates.evidenceKeys(at())).sort()).toEqual(["repeated_note|learning|b", "session_learning|learning|a"]);
      const counts = await h.stores.candidates.counts(at());
      expect(counts.byStatus).toMatchObject({ pending: 1, rejected: 1 });
      expect(counts.byDetector).toMatchObject({ repeated_note: 1, session_learning: 0 });
    });

    it("rules: a slug is unique among active rules; archived rows never change; list filters; active; count per lesson", async () => {
      const lessonId = fixtureId();
      const r1 = makeRule({ ...at(), lessonId }, { slug: "pin", level: "must", triggers: { paths: [], operations: [], languages: ["typescript"], code_patterns: [], project_attributes: {} } });
      expect(await h.stores.rules.insert({ rule: r1 })).toEqual({ kind: "created" });
      expect(await h.stores.rules.insert({ rule: makeRule({ ...at(), lessonId }, { slug: "pin" }) })).toEqual({ kind: "slug_taken", existingId: r1.id });
      expect(await h.stores.rules.countActiveForLesson({ workspaceId: w.workspace.id, lessonId })).toBe(1);
      const archived = { ...r1, status: "archived" as const, archivedAt: AT, archivedReason: "r", version: 2 };
      expect(await h.stores.rules.replace({ rule: archived, expectedVersion: 1 })).toEqual({ kind: "replaced" });
      expect(await h.stores.rules.replace({ rule: { ...archived, status: "active", version: 3 }, expectedVersion: 2 })).toEqual({ kind: "conflict" });
      const r2 = makeRule({ ...at(), lessonId }, { slug: "pin" });
      expect((await h.stores.rules.insert({ rule: r2 })).kind).toBe("created");
      expect((await h.stores.rules.findBySlug({ ...at(), slug: "pin" }))?.id).toBe(r2.id);
      const r3 = makeRule({ ...at(), lessonId: fixtureId() }, { slug: "alpha" });
      await h.stores.rules.insert({ rule: r3 });
      expect((await h.stores.rules.active(at())).map((r) => r.id)).toEqual([r3.id, r2.id]);
      const list = (f: Partial<{ status: "active" | "archived"; level: "must"; language: string; sourceLessonId: string }>) =>
        h.stores.rules.list({ ...at(), filters: { status: f.status ?? null, level: f.level ?? null, language: f.language ?? null, sourceLessonId: f.sourceLessonId ?? null }, offset: 0, limit: null }).then((r) => r.map((x) => x.id));
      expect(await list({ language: "typescript" })).toEqual([r1.id]);
      expect(await list({ status: "archived", level: "must" })).toEqual([r1.id]);
      expect(await list({ sourceLessonId: lessonId })).toEqual([r1.id, r2.id].sort());
      expect((await h.stores.rules.list({ ...at(), filters: { status: null, level: null, language: null, sourceLessonId: null }, offset: 1, limit: 1 })).length).toBe(2);
    });

    it("record events by type in [since, until] and sessions touched in a window", async () => {
      const ev = (eventType: string, ms: number) => ({ workspaceId: w.workspace.id, id: fixtureId(), projectId, subjectType: "backlog_item", subjectId: "I1", eventType, actor: BY, oldValue: null, newValue: { reason: "r" }, buildSessionId: null, at: new Date(AT.getTime() + ms) });
      for (const e of [ev("reassigned", 0), ev("created", 1), ev("staleness_acknowledged", 2), ev("reassigned", 10)]) await h.stores.recordEvents.append({ event: e });
      const found = await h.stores.recordEvents.listByType({ ...at(), subjectType: "backlog_item", eventTypes: ["reassigned", "staleness_acknowledged"], since: AT, until: new Date(AT.getTime() + 2), limit: 10 });
      expect(found.map((e) => e.eventType)).toEqual(["reassigned", "staleness_acknowledged"]);
      const s1 = makeBuildSession(at(), { updatedAt: AT });
      const s2 = makeBuildSession(at(), { updatedAt: new Date(AT.getTime() + 5000) });
      for (const s of [s1, s2]) await h.stores.buildSessions.insert({ session: s });
      expect((await h.stores.buildSessions.touchedBetween({ ...at(), since: AT, until: new Date(AT.getTime() + 1000), limit: 10 })).map((s) => s.id)).toEqual([s1.id]);
      expect((await h.stores.buildSessions.touchedBetween({ ...at(), since: AT, until: new Date(AT.getTime() + 5000), limit: 10 })).map((s) => s.id)).toEqual([s1.id, s2.id]);
    });

    it("usage: reports kept, the newest per model, differences summed per session, model and UTC day with the session's times", async () => {
      const s1 = makeBuildSession(at(), { startedAt: AT, activeSeconds: 42 });
      await h.stores.buildSessions.insert({ session: s1 });
      const figures = (n: number) => ({ input_tokens: n, output_tokens: n, cache_read_tokens: 0, cache_write_tokens: 0, cost_micro_usd: n * 10 });
      const report = (model: string, cumulative: number, delta: number, ms: number) => ({ workspaceId: w.workspace.id, id: fixtureId(), projectId, buildSessionId: s1.id, aiAccountId: BY.aiAccountId, model, reportedAt: new Date(AT.getTime() + ms), cumulative: figures(cumulative), delta: figures(delta) });
      for (const r of [report("opus", 10, 10, 0), report("opus", 30, 20, 1000), report("haiku", 5, 5, 2000), report("opus", 9_000_000_000_000, 8_999_999_999_970, 86_400_000)]) await h.stores.usage.insert({ report: r });
      const latest = await h.stores.usage.latest({ workspaceId: w.workspace.id, buildSessionId: s1.id });
      expect(latest.map((r) => [r.model, r.cumulative.input_tokens]).sort()).toEqual([["haiku", 5], ["opus", 9_000_000_000_000]]);
      const days = await h.stores.usage.byDay({ workspaceId: w.workspace.id, projectId, aiAccountId: null, buildSessionId: null, since: AT, until: new Date(AT.getTime() + 86_400_000) });
      expect(days.map((d) => [d.model, d.day.toISOString(), d.figures.input_tokens, d.figures.cost_micro_usd, d.session.activeSeconds]).sort()).toEqual([
        ["haiku", "2026-03-02T00:00:00.000Z", 5, 50, 42],
        ["opus", "2026-03-02T00:00:00.000Z", 30, 300, 42],
        ["opus", "2026-03-03T00:00:00.000Z", 8_999_999_999_970, 89_999_999_999_700, 42],
      ]);
      expect((await h.stores.usage.byDay({ workspaceId: w.workspace.id, projectId: fixtureId(), aiAccountId: null, buildSessionId: null, since: AT, until: new Date(AT.getTime() + 86_400_000) })).length).toBe(0);
      expect((await h.stores.usage.totalsForSessions({ workspaceId: w.workspace.id, buildSessionIds: [s1.id] })).input_tokens).toBe(9_000_000_000_005);
    });

    it("imports: rows by number and status, compare-and-set, fingerprints unique per project and target", async () => {
      const record = { workspaceId: w.workspace.id, id: fixtureId(), projectId, parser: "lessons-list", parserVersion: 1, filename: "L.md", contentSha256: "x", status: "previewed" as const, counts: { rows: 2, ready: 1, invalid: 1, duplicate: 0 }, created: null, skipped: null, committedAt: null, version: 1, createdAt: AT, updatedAt: AT, createdBy: BY };
      const row = (n: number, status: "ready" | "invalid") => ({ workspaceId: w.workspace.id, importId: record.id, rowNumber: n, lineStart: n, lineEnd: n, target: "lesson" as const, parsed: { title: `t${n}` }, fingerprint: `f${n}`, status, errors: [], existingRecordId: null, createdRecordId: null });
      await h.stores.imports.insert({ record, rows: [row(1, "ready"), row(2, "invalid")] });
      expect(await h.stores.imports.find({ workspaceId: w.workspace.id, id: record.id })).toEqual(record);
      expect((await h.stores.imports.rows({ workspaceId: w.workspace.id, importId: record.id, status: "invalid", offset: 0, limit: 10 })).map((r) => r.rowNumber)).toEqual([2]);
      expect(await h.stores.imports.replace({ record: { ...record, status: "committed", version: 2 }, expectedVersion: 2 })).toEqual({ kind: "conflict" });
      expect(await h.stores.imports.replace({ record: { ...record, status: "committed", version: 2 }, expectedVersion: 1 })).toEqual({ kind: "replaced" });
      await h.stores.imports.updateRows({ rows: [{ ...row(1, "ready"), status: "created", createdRecordId: "R1" }] });
      expect((await h.stores.imports.rows({ workspaceId: w.workspace.id, importId: record.id, status: null, offset: 0, limit: null })).map((r) => [r.status, r.createdRecordId])).toEqual([["created", "R1"], ["invalid", null]]);
      expect((await h.stores.imports.list({ workspaceId: w.workspace.id, projectId, status: "committed", parser: null, offset: 0, limit: 10 })).map((r) => r.id)).toEqual([record.id]);
      const fp = { workspaceId: w.workspace.id, projectId, target: "lesson", fingerprint: "f1", recordId: "R1", importId: record.id, at: AT };
      expect(await h.stores.imports.addFingerprint(fp)).toEqual({ kind: "added" });
      expect(await h.stores.imports.addFingerprint({ ...fp, recordId: "R2" })).toEqual({ kind: "taken", recordId: "R1" });
      expect((await h.stores.imports.addFingerprint({ ...fp, target: "decision" })).kind).toBe("added");
      expect([...(await h.stores.imports.fingerprints({ workspaceId: w.workspace.id, projectId, target: "lesson", fingerprints: ["f1", "f9"] }))]).toEqual([["f1", "R1"]]);
    });
  });
}
