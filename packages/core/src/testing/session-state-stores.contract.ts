import { beforeEach, describe, expect, it } from "vitest";
import { DEFAULT_PROJECT_SETTINGS, type Project } from "../session-state/projects/project.ts";
import { EMPTY_CURRENT_STATE, type BuildSession } from "../session-state/build-sessions/build-session.ts";
import type { BacklogItem } from "../session-state/backlog/backlog-item.ts";
import type { DecisionEntry, DecisionListFilters } from "../session-state/decision-log/decision-entry.ts";
import { fixtureId } from "./access-fixtures.ts";
import { seedWorkspace, type MessagingHarness, type MessagingHarnessFactory, type SeededWorkspace } from "./messaging-harness.ts";

const AT = new Date("2026-03-02T10:00:00.000Z");

/** A project record for store tests (active, not the default unless told). */
export function makeProject(workspaceId: string, overrides: Partial<Project> = {}): Project {
  const id = overrides.id ?? fixtureId();
  return {
    workspaceId,
    id,
    name: `Project ${id}`,
    slug: `p-${id.toLowerCase()}`,
    description: "",
    repositoryUrl: null,
    attributes: {},
    settings: { ...DEFAULT_PROJECT_SETTINGS },
    state: "active",
    isDefault: false,
    archivedAt: null,
    version: 1,
    createdAt: AT,
    updatedAt: AT,
    createdBy: { aiAccountId: fixtureId(), friendlyName: "maker" },
    ...overrides,
  };
}

/** A decision-log entry for store tests (kind decision, its own chain root). */
export function makeDecision(p: { workspaceId: string; projectId: string; number: number }, overrides: Partial<DecisionEntry> = {}): DecisionEntry {
  const id = overrides.id ?? fixtureId();
  return {
    workspaceId: p.workspaceId,
    id,
    projectId: p.projectId,
    number: p.number,
    kind: "decision",
    title: `Decision ${p.number}`,
    contextMd: "",
    decisionMd: "We keep it simple.",
    rationaleMd: "",
    alternatives: [],
    consequences: { good: [], bad: [] },
    tags: [],
    files: [],
    buildSessionId: null,
    createdBy: { aiAccountId: "01J0000000000000000000AUTH", friendlyName: "author" },
    decidedAt: AT,
    recordedAt: AT,
    supersedesId: null,
    chainRootId: id,
    source: { kind: "manual", ref: "author", url: null },
    ...overrides,
  };
}

/** A build session for store tests (active, its own chain root). */
export function makeBuildSession(p: { workspaceId: string; projectId: string }, overrides: Partial<BuildSession> = {}): BuildSession {
  const id = overrides.id ?? fixtureId();
  return {
    workspaceId: p.workspaceId, id, projectId: p.projectId, title: "Work", goal: "", client: null, state: "active", endReason: null, startedAt: AT, lastPingAt: AT, endedAt: null,
    pingCount: 0, activeSeconds: 0, previousSessionId: null, nextSessionId: null, chainRootId: id, leadLines: [], summaryMd: "", learnings: [], currentState: { ...EMPTY_CURRENT_STATE },
    currentStateVersion: 1, prs: [], version: 1, createdAt: AT, updatedAt: AT, createdBy: { aiAccountId: "01J0000000000000000000AUTH", friendlyName: "author" }, ...overrides,
  };
}

/** A backlog item for store tests (untriaged). */
export function makeBacklogItem(p: { workspaceId: string; projectId: string; number: number }, overrides: Partial<BacklogItem> = {}): BacklogItem {
  return {
    workspaceId: p.workspaceId, id: fixtureId(), projectId: p.projectId, number: p.number, title: `Item ${p.number}`, descriptionMd: "", acceptanceCriteriaMd: "", kind: "task", labels: [],
    priority: 2, status: "untriaged", assigneeAiAccountId: null, discoveredFromId: null, duplicateOfId: null, source: { buildSessionId: null, decisionId: null, importRow: null },
    closing: { prUrl: null, commitSha: null, notesMd: [], reason: null }, resolvedAt: null, dismissedAt: null, lastActivityAt: AT, stalenessAck: null, version: 1, createdAt: AT, updatedAt: AT,
    createdBy: { aiAccountId: "01J0000000000000000000AUTH", friendlyName: "author" }, ...overrides,
  };
}

const NO_FILTERS: DecisionListFilters = { status: null, kind: null, tag: null, authorId: null, buildSessionId: null, since: null, until: null, file: null };

/**
 * The contract every session-state store family passes (in memory, PostgreSQL): projects (slugs,
 * the single default under concurrency, guarded state moves, version guards, numbering), the
 * append-only decision log (linear chains under concurrency, filters, search, authors, counts,
 * amendments) and record events; every read scoped by workspace; rollback leaves nothing.
 */
export function describeSessionStateStoresContract(make: MessagingHarnessFactory): void {
  describe("ProjectStore contract", () => {
    let h: MessagingHarness;
    let w: SeededWorkspace;
    beforeEach(async () => {
      h = await make();
      w = await seedWorkspace(h.stores);
    });
    const ws = () => w.workspace.id;

    it("inserts and finds projects; a slug is unique in the workspace, archived projects included; other workspaces see nothing", async () => {
      const p = makeProject(ws(), { slug: "alpha", attributes: { lang: "ts" } });
      expect(await h.stores.projects.insert({ project: p })).toEqual({ kind: "created", project: p });
      expect(await h.stores.projects.find({ workspaceId: ws(), projectId: p.id })).toEqual(p);
      await h.stores.projects.setState({ workspaceId: ws(), projectId: p.id, to: "archived", now: AT });
      expect(await h.stores.projects.insert({ project: makeProject(ws(), { slug: "alpha" }) })).toEqual({ kind: "slug_taken", existingId: p.id });
      const other = await seedWorkspace(h.stores);
      expect((await h.stores.projects.insert({ project: makeProject(other.workspace.id, { slug: "alpha" }) })).kind).toBe("created");
      expect(await h.stores.projects.find({ workspaceId: other.workspace.id, projectId: p.id })).toBeNull();
    });

    it("keeps at most one default: concurrent first creations make exactly one the default", async () => {
      const results = await Promise.all(Array.from({ length: 6 }, () => h.tx.run((s) => s.projects.insert({ project: makeProject(ws(), { isDefault: true }) }))));
      const created = results.flatMap((r) => (r.kind === "created" ? [r.project] : []));
      expect(created).toHaveLength(6);
      expect(created.filter((p) => p.isDefault)).toHaveLength(1);
      expect((await h.stores.projects.findDefault({ workspaceId: ws() }))?.id).toBe(created.find((p) => p.isDefault)?.id);
    });

    it("lists by id with state and single-project filters, paged; counts active projects", async () => {
      const ps = [makeProject(ws()), makeProject(ws()), makeProject(ws())];
      for (const p of ps) await h.stores.projects.insert({ project: p });
      await h.stores.projects.setState({ workspaceId: ws(), projectId: ps[1]!.id, to: "archived", now: AT });
      const all = await h.stores.projects.list({ workspaceId: ws(), state: null, onlyId: null, after: null, limit: 2 });
      expect(all.map((p) => p.id)).toEqual(ps.map((p) => p.id));
      expect((await h.stores.projects.list({ workspaceId: ws(), state: null, onlyId: null, after: ps[0]!.id, limit: 5 })).map((p) => p.id)).toEqual([ps[1]!.id, ps[2]!.id]);
      expect((await h.stores.projects.list({ workspaceId: ws(), state: "archived", onlyId: null, after: null, limit: 5 })).map((p) => p.id)).toEqual([ps[1]!.id]);
      expect((await h.stores.projects.list({ workspaceId: ws(), state: null, onlyId: ps[2]!.id, after: null, limit: 5 })).map((p) => p.id)).toEqual([ps[2]!.id]);
      expect(await h.stores.projects.countActive({ workspaceId: ws() })).toBe(2);
    });

    it("updates an active project under an optional version guard; refuses archived and missing ones", async () => {
      const p = makeProject(ws());
      await h.stores.projects.insert({ project: p });
      const later = new Date(AT.getTime() + 1000);
      const r1 = await h.stores.projects.update({ workspaceId: ws(), projectId: p.id, expectedVersion: 1, changes: { name: "Renamed", attributes: { a: "b" } }, now: later });
      expect(r1).toEqual({ kind: "updated", project: { ...p, name: "Renamed", attributes: { a: "b" }, version: 2, updatedAt: later } });
      expect(await h.stores.projects.update({ workspaceId: ws(), projectId: p.id, expectedVersion: 1, changes: { name: "x" }, now: later })).toMatchObject({ kind: "version_conflict", current: { version: 2, name: "Renamed" } });
      expect(await h.stores.projects.update({ workspaceId: ws(), projectId: p.id, expectedVersion: null, changes: { description: "d" }, now: later })).toMatchObject({ kind: "updated", project: { version: 3, description: "d", name: "Renamed" } });
      await h.stores.projects.setState({ workspaceId: ws(), projectId: p.id, to: "archived", now: later });
      expect(await h.stores.projects.update({ workspaceId: ws(), projectId: p.id, expectedVersion: null, changes: { name: "x" }, now: later })).toEqual({ kind: "archived" });
      expect(await h.stores.projects.update({ workspaceId: ws(), projectId: fixtureId(), expectedVersion: null, changes: {}, now: later })).toEqual({ kind: "not_found" });
    });

    it("moves state by guarded writes: never archives the default; archiving twice or unarchiving an active project is wrong_state", async () => {
      const def = makeProject(ws(), { isDefault: true });
      const p = makeProject(ws());
      await h.stores.projects.insert({ project: def });
      await h.stores.projects.insert({ project: p });
      expect(await h.stores.projects.setState({ workspaceId: ws(), projectId: def.id, to: "archived", now: AT })).toEqual({ kind: "is_default" });
      expect(await h.stores.projects.setState({ workspaceId: ws(), projectId: p.id, to: "archived", now: AT })).toEqual({ kind: "changed", project: { ...p, state: "archived", archivedAt: AT, version: 2 } });
      expect(await h.stores.projects.setState({ workspaceId: ws(), projectId: p.id, to: "archived", now: AT })).toMatchObject({ kind: "wrong_state", current: { state: "archived" } });
      expect(await h.stores.projects.setState({ workspaceId: ws(), projectId: p.id, to: "active", now: AT })).toMatchObject({ kind: "changed", project: { state: "active", archivedAt: null, version: 3 } });
      expect(await h.stores.projects.setState({ workspaceId: ws(), projectId: p.id, to: "active", now: AT })).toMatchObject({ kind: "wrong_state" });
      expect(await h.stores.projects.setState({ workspaceId: ws(), projectId: fixtureId(), to: "active", now: AT })).toEqual({ kind: "not_found" });
    });

    it("moves the default; repeating changes nothing; archived projects cannot be the default; concurrent moves leave exactly one", async () => {
      const ps = [makeProject(ws(), { isDefault: true }), makeProject(ws()), makeProject(ws()), makeProject(ws())];
      for (const p of ps) await h.stores.projects.insert({ project: p });
      expect(await h.stores.projects.makeDefault({ workspaceId: ws(), projectId: ps[1]!.id, now: AT })).toMatchObject({ kind: "default", project: { id: ps[1]!.id, isDefault: true }, previousId: ps[0]!.id, changed: true });
      expect(await h.stores.projects.makeDefault({ workspaceId: ws(), projectId: ps[1]!.id, now: AT })).toMatchObject({ kind: "default", changed: false });
      expect((await h.stores.projects.find({ workspaceId: ws(), projectId: ps[0]!.id }))?.isDefault).toBe(false);
      await h.stores.projects.setState({ workspaceId: ws(), projectId: ps[3]!.id, to: "archived", now: AT });
      expect(await h.stores.projects.makeDefault({ workspaceId: ws(), projectId: ps[3]!.id, now: AT })).toEqual({ kind: "archived" });
      expect(await h.stores.projects.makeDefault({ workspaceId: ws(), projectId: fixtureId(), now: AT })).toEqual({ kind: "not_found" });
      await Promise.all([ps[0]!, ps[2]!, ps[0]!, ps[2]!].map((p) => h.tx.run((s) => s.projects.makeDefault({ workspaceId: ws(), projectId: p.id, now: AT }))));
      const all = await h.stores.projects.list({ workspaceId: ws(), state: null, onlyId: null, after: null, limit: 10 });
      expect(all.filter((p) => p.isDefault)).toHaveLength(1);
    });

    it("hands out per-project numbers from 1 without gaps or repeats under concurrency, per sequence", async () => {
      const p = makeProject(ws());
      const q = makeProject(ws());
      await h.stores.projects.insert({ project: p });
      await h.stores.projects.insert({ project: q });
      const numbers = await Promise.all(Array.from({ length: 8 }, () => h.tx.run((s) => s.projects.nextNumber({ workspaceId: ws(), projectId: p.id, sequence: "decision" }))));
      expect(numbers.sort((a, b) => a - b)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(await h.stores.projects.nextNumber({ workspaceId: ws(), projectId: p.id, sequence: "backlog" })).toBe(1);
      expect(await h.stores.projects.nextNumber({ workspaceId: ws(), projectId: q.id, sequence: "decision" })).toBe(1);
    });

    it("leaves nothing behind when the transaction rolls back", async () => {
      const p = makeProject(ws());
      await expect(
        h.tx.run(async (s) => {
          await s.projects.insert({ project: p });
          throw new Error("rollback");
        }),
      ).rejects.toThrow("rollback");
      expect(await h.stores.projects.find({ workspaceId: ws(), projectId: p.id })).toBeNull();
    });
  });

  describe("DecisionLogStore contract", () => {
    let h: MessagingHarness;
    let w: SeededWorkspace;
    let project: Project;
    beforeEach(async () => {
      h = await make();
      w = await seedWorkspace(h.stores);
      project = makeProject(w.workspace.id);
      await h.stores.projects.insert({ project });
    });
    const at = () => ({ workspaceId: w.workspace.id, projectId: project.id });
    let n = 0;
    const decision = (overrides: Partial<DecisionEntry> = {}) => makeDecision({ ...at(), number: ++n }, overrides);
    const correction = (of: DecisionEntry, overrides: Partial<DecisionEntry> = {}) => decision({ kind: "correction", supersedesId: of.id, chainRootId: of.chainRootId, ...overrides });

    it("appends decisions and corrections; supersededById is derived; the chain reads oldest first", async () => {
      const d = decision({ tags: ["db"], files: ["src/a.ts"], alternatives: [{ option: "x", pros: ["p"], cons: [], chosen: true }] });
      expect(await h.stores.decisions.append({ entry: d })).toEqual({ kind: "appended" });
      expect(await h.stores.decisions.find({ workspaceId: w.workspace.id, id: d.id })).toEqual({ entry: d, supersededById: null });
      const c1 = correction(d);
      expect(await h.stores.decisions.append({ entry: c1 })).toEqual({ kind: "appended" });
      const c2 = correction(c1);
      await h.stores.decisions.append({ entry: c2 });
      expect((await h.stores.decisions.find({ workspaceId: w.workspace.id, id: d.id }))?.supersededById).toBe(c1.id);
      expect((await h.stores.decisions.chain({ workspaceId: w.workspace.id, chainRootId: d.id })).map((r) => [r.entry.id, r.supersededById])).toEqual([
        [d.id, c1.id],
        [c1.id, c2.id],
        [c2.id, null],
      ]);
      expect(await h.stores.decisions.append({ entry: correction(d) })).toEqual({ kind: "not_tip", currentId: c2.id });
      const other = await seedWorkspace(h.stores);
      expect(await h.stores.decisions.find({ workspaceId: other.workspace.id, id: d.id })).toBeNull();
    });

    it("keeps chains linear: of concurrent corrections of one tip exactly one is appended", async () => {
      const d = decision();
      await h.stores.decisions.append({ entry: d });
      const results = await Promise.all(Array.from({ length: 5 }, () => h.tx.run((s) => s.decisions.append({ entry: correction(d) }))));
      expect(results.filter((r) => r.kind === "appended")).toHaveLength(1);
      const chain = await h.stores.decisions.chain({ workspaceId: w.workspace.id, chainRootId: d.id });
      expect(chain).toHaveLength(2);
      for (const r of results) if (r.kind === "not_tip") expect(r.currentId).toBe(chain[1]?.entry.id);
    });

    it("lists newest first with every filter, paged by id", async () => {
      const author = fixtureId();
      const d1 = decision({ tags: ["db"], files: ["src/db.ts"], decidedAt: new Date("2026-03-01T00:00:00.000Z") });
      const d2 = decision({ createdBy: { aiAccountId: author, friendlyName: "other" }, decidedAt: new Date("2026-03-05T00:00:00.000Z") });
      await h.stores.decisions.append({ entry: d1 });
      await h.stores.decisions.append({ entry: d2 });
      const c1 = correction(d1, { tags: ["db"] });
      await h.stores.decisions.append({ entry: c1 });
      const list = (f: Partial<DecisionListFilters>, after: string | null = null, limit = 10) => h.stores.decisions.list({ ...at(), filters: { ...NO_FILTERS, ...f }, after, limit }).then((rows) => rows.map((r) => r.entry.id));
      expect(await list({})).toEqual([c1.id, d2.id, d1.id]);
      expect(await list({}, c1.id, 1)).toEqual([d2.id, d1.id]);
      expect(await list({ status: "active" })).toEqual([c1.id, d2.id]);
      expect(await list({ status: "superseded" })).toEqual([d1.id]);
      expect(await list({ kind: "correction" })).toEqual([c1.id]);
      expect(await list({ tag: "db" })).toEqual([c1.id, d1.id]);
      expect(await list({ authorId: author })).toEqual([d2.id]);
      expect(await list({ file: "src/db.ts" })).toEqual([d1.id]);
      expect(await list({ since: new Date("2026-03-02T00:00:00.000Z"), until: new Date("2026-03-06T00:00:00.000Z") })).toEqual([c1.id, d2.id]);
      const elsewhere = makeProject(w.workspace.id);
      await h.stores.projects.insert({ project: elsewhere });
      expect(await h.stores.decisions.list({ workspaceId: w.workspace.id, projectId: elsewhere.id, filters: NO_FILTERS, after: null, limit: 10 })).toEqual([]);
    });

    it("searches a project's entries by words, best first, with the matched words between ** in the snippet", async () => {
      const a = decision({ title: "Use PostgreSQL advisory locks", decisionMd: "Sealers take an advisory lock per workspace." });
      const b = decision({ title: "Pool size", decisionMd: "Four connections; advisory notes elsewhere." });
      const c = decision({ title: "Unrelated", decisionMd: "Nothing here." });
      for (const e of [a, b, c]) await h.stores.decisions.append({ entry: e });
      const hits = await h.stores.decisions.search({ ...at(), q: "advisory", offset: 0, limit: 10 });
      expect(hits.map((x) => x.row.entry.id).sort()).toEqual([a.id, b.id].sort());
      expect(hits[0]?.row.entry.id).toBe(a.id);
      expect(hits[0]?.snippet).toMatch(/\*\*advisory\*\*/i);
      expect(hits[0]!.rank).toBeGreaterThan(0);
      expect((await h.stores.decisions.search({ ...at(), q: "advisory workspace", offset: 0, limit: 10 })).map((x) => x.row.entry.id)).toEqual([a.id]);
      expect(await h.stores.decisions.search({ ...at(), q: "advisory", offset: 1, limit: 10 })).toHaveLength(1);
      expect(await h.stores.decisions.search({ ...at(), q: "kubernetes", offset: 0, limit: 10 })).toEqual([]);
    });

    it("reports authors, counts per UTC day, counts entries, and keeps amendments (oldest first)", async () => {
      const other = { aiAccountId: fixtureId(), friendlyName: "second" };
      const d1 = decision({ decidedAt: new Date("2026-03-01T23:30:00.000Z"), recordedAt: new Date("2026-03-02T00:00:00.000Z") });
      const d2 = decision({ decidedAt: new Date("2026-03-01T01:00:00.000Z"), createdBy: other });
      const c = correction(d1, { decidedAt: new Date("2026-03-03T12:00:00.000Z"), recordedAt: new Date("2026-03-04T00:00:00.000Z") });
      for (const e of [d1, d2, c]) await h.stores.decisions.append({ entry: e });
      expect(await h.stores.decisions.authors(at())).toEqual([
        { aiAccountId: d1.createdBy.aiAccountId, friendlyName: "author", entries: 2, corrections: 1, firstAt: new Date("2026-03-02T00:00:00.000Z"), lastAt: new Date("2026-03-04T00:00:00.000Z") },
        { aiAccountId: other.aiAccountId, friendlyName: "second", entries: 1, corrections: 0, firstAt: AT, lastAt: AT },
      ]);
      expect(await h.stores.decisions.countByDay({ ...at(), since: new Date("2026-03-01T00:00:00.000Z"), until: new Date("2026-03-03T00:00:00.000Z") })).toEqual([{ day: "2026-03-01", count: 2 }]);
      expect(await h.stores.decisions.count(at())).toBe(3);
      const by = { aiAccountId: fixtureId(), friendlyName: "amender" };
      const a1 = { workspaceId: w.workspace.id, id: fixtureId(), entryId: d1.id, source: { kind: "pr" as const, ref: "#12", url: "https://example.com/pr/12" }, reason: "merged later", at: AT, by };
      const a2 = { ...a1, id: fixtureId(), reason: "second" };
      await h.stores.decisions.appendAmendment({ amendment: a1 });
      await h.stores.decisions.appendAmendment({ amendment: a2 });
      expect(await h.stores.decisions.amendments({ workspaceId: w.workspace.id, entryId: d1.id })).toEqual([a1, a2]);
      expect(await h.stores.decisions.amendments({ workspaceId: w.workspace.id, entryId: d2.id })).toEqual([]);
    });

    it("leaves nothing behind when the transaction rolls back", async () => {
      const d = decision();
      await expect(
        h.tx.run(async (s) => {
          await s.decisions.append({ entry: d });
          throw new Error("rollback");
        }),
      ).rejects.toThrow("rollback");
      expect(await h.stores.decisions.find({ workspaceId: w.workspace.id, id: d.id })).toBeNull();
    });
  });

  describe("BuildSessionStore and BacklogStore contract", () => {
    let h: MessagingHarness;
    let w: SeededWorkspace;
    let project: Project;
    beforeEach(async () => {
      h = await make();
      w = await seedWorkspace(h.stores);
      project = makeProject(w.workspace.id);
      await h.stores.projects.insert({ project });
    });
    const at = () => ({ workspaceId: w.workspace.id, projectId: project.id });

    it("replaces a session only under the version it read: of concurrent writers exactly one wins", async () => {
      const s = makeBuildSession(at(), { leadLines: [{ text: "hi", addedAt: AT, addedBy: { aiAccountId: w.sender.id, friendlyName: "s" } }], prs: [{ url: "https://e.com/1", repo: null, number: 1, title: null, state: "open", head_sha: null }] });
      await h.stores.buildSessions.insert({ session: s });
      expect(await h.stores.buildSessions.find({ workspaceId: w.workspace.id, id: s.id })).toEqual(s);
      const results = await Promise.all([1, 2, 3].map((n) => h.tx.run((st) => st.buildSessions.replace({ session: { ...s, pingCount: n, version: 2 }, expectedVersion: 1 }))));
      expect(results.filter((r) => r.kind === "replaced")).toHaveLength(1);
      expect((await h.stores.buildSessions.find({ workspaceId: w.workspace.id, id: s.id }))?.version).toBe(2);
      expect(await h.stores.buildSessions.activeFor({ ...at(), aiAccountId: s.createdBy.aiAccountId })).toMatchObject({ id: s.id });
      expect(await h.stores.buildSessions.countActive(at())).toBe(1);
    });

    it("continues a session once: a second continuation is a conflict and leaves nothing behind", async () => {
      const s = makeBuildSession(at());
      await h.stores.buildSessions.insert({ session: s });
      const next = (n: number) => makeBuildSession(at(), { previousSessionId: s.id, chainRootId: s.id, title: `next ${n}` });
      const a = next(1);
      expect(await h.stores.buildSessions.insertContinuation({ predecessor: { ...s, state: "ended", endReason: "continued", endedAt: AT, nextSessionId: a.id, version: 2 }, expectedVersion: 1, successor: a })).toEqual({ kind: "replaced" });
      const b = next(2);
      expect(await h.stores.buildSessions.insertContinuation({ predecessor: { ...s, nextSessionId: b.id, version: 3 }, expectedVersion: 2, successor: b })).toEqual({ kind: "conflict" });
      expect(await h.stores.buildSessions.find({ workspaceId: w.workspace.id, id: b.id })).toBeNull();
      expect((await h.stores.buildSessions.find({ workspaceId: w.workspace.id, id: s.id }))?.nextSessionId).toBe(a.id);
      expect((await h.stores.buildSessions.chain({ workspaceId: w.workspace.id, chainRootId: s.id })).map((x) => x.id)).toEqual([s.id, a.id]);
      expect((await h.stores.buildSessions.latestInProject({ ...at(), excludeId: a.id }))?.id).toBe(s.id);
    });

    it("never moves a backlog item out of a terminal status, and replaces only under the version read", async () => {
      const item = makeBacklogItem({ ...at(), number: 1 });
      await h.stores.backlog.insert({ item });
      expect(await h.stores.backlog.find({ workspaceId: w.workspace.id, id: item.id })).toEqual(item);
      expect(await h.stores.backlog.replace({ item: { ...item, title: "x", version: 2 }, expectedVersion: 2 })).toEqual({ kind: "conflict" });
      const resolved = { ...item, status: "resolved" as const, resolvedAt: AT, closing: { ...item.closing, notesMd: ["done"] }, version: 2 };
      expect(await h.stores.backlog.replace({ item: resolved, expectedVersion: 1 })).toEqual({ kind: "replaced" });
      expect(await h.stores.backlog.replace({ item: { ...resolved, status: "open", resolvedAt: null, version: 3 }, expectedVersion: 2 })).toEqual({ kind: "conflict" });
      expect(await h.stores.backlog.replace({ item: { ...resolved, closing: { ...resolved.closing, notesMd: ["done", "more"] }, version: 3 }, expectedVersion: 2 })).toEqual({ kind: "replaced" });
      expect((await h.stores.backlog.find({ workspaceId: w.workspace.id, id: item.id }))?.status).toBe("resolved");
    });

    it("counts by status and finds stale items at a given now, honouring snoozes", async () => {
      const t = { openMs: 30 * 86_400_000, inProgressMs: 7 * 86_400_000 };
      const old = new Date(AT.getTime() - 31 * 86_400_000);
      const a = makeBacklogItem({ ...at(), number: 1 }, { status: "open", lastActivityAt: old });
      const b = makeBacklogItem({ ...at(), number: 2 }, { status: "in_progress", assigneeAiAccountId: w.sender.id, lastActivityAt: new Date(AT.getTime() - 8 * 86_400_000) });
      const c = makeBacklogItem({ ...at(), number: 3 }, { status: "open", lastActivityAt: old, stalenessAck: { at: AT, by: { aiAccountId: w.sender.id, friendlyName: "s" }, reason: "r", until: new Date(AT.getTime() + 86_400_000), count: 1 } });
      const d = makeBacklogItem({ ...at(), number: 4 }, { status: "dismissed", dismissedAt: AT, closing: { prUrl: null, commitSha: null, notesMd: [], reason: "no" }, lastActivityAt: old });
      for (const item of [a, b, c, d]) await h.stores.backlog.insert({ item });
      expect(await h.stores.backlog.countByStatus({ ...at(), now: AT, thresholds: t })).toEqual({ untriaged: 0, open: 2, in_progress: 1, resolved: 0, dismissed: 1, stale: 2 });
      const stale = (o: { includeSnoozed?: boolean; status?: "open" | null } = {}) => h.stores.backlog.stale({ ...at(), now: AT, thresholds: t, status: o.status ?? null, assignee: null, olderThanMs: null, includeSnoozed: o.includeSnoozed ?? false, offset: 0, limit: 10 }).then((r) => r.map((x) => x.id));
      expect(await stale()).toEqual([a.id, b.id]);
      expect(await stale({ includeSnoozed: true })).toEqual([a.id, c.id, b.id]);
      expect(await stale({ status: "open" })).toEqual([a.id]);
    });
  });

  describe("RecordEventStore contract", () => {
    it("appends events and lists a record's newest first, at most limit, scoped by workspace", async () => {
      const h = await make();
      const w = await seedWorkspace(h.stores);
      const subjectId = fixtureId();
      const events = [1, 2, 3].map((i) => ({
        workspaceId: w.workspace.id,
        id: fixtureId(),
        projectId: subjectId,
        subjectType: "project",
        subjectId,
        eventType: `e${i}`,
        actor: { aiAccountId: w.sender.id, friendlyName: w.sender.friendlyName },
        oldValue: i === 1 ? null : { n: i - 1 },
        newValue: { n: i },
        buildSessionId: null,
        at: AT,
      }));
      for (const event of events) await h.stores.recordEvents.append({ event });
      expect(await h.stores.recordEvents.listFor({ workspaceId: w.workspace.id, subjectType: "project", subjectId, limit: 2 })).toEqual([events[2], events[1]]);
      const other = await seedWorkspace(h.stores);
      expect(await h.stores.recordEvents.listFor({ workspaceId: other.workspace.id, subjectType: "project", subjectId, limit: 2 })).toEqual([]);
    });
  });
}
