import { beforeEach, describe, expect, it } from "vitest";
import type { CredentialPrincipal, Principal, Workspace } from "../access/model.ts";
import { createInMemoryDeps, type InMemoryWorld } from "../testing/create-in-memory-deps.ts";
import { callOperation } from "../testing/guard-rail-calls.ts";
import { seedPrincipal, seedTestWorkspace } from "../testing/principal-fixtures.ts";
import { LEARNING_AUDITED } from "../testing/session-state-audited.ts";
import { outcomeOf } from "../testing/session-state-tables.contract.ts";

// Lessons, lesson candidates and rules through the catalogue, in memory (SESSION-STATE §6-8).

describe("session-state operations: the learning loop (in memory)", () => {
  let world: InMemoryWorld;
  let ws: Workspace;
  let agent: CredentialPrincipal;
  let projectId: string;
  const call = (who: Principal, name: string, input: Record<string, unknown>) => callOperation(world.deps, who, name, input);
  const body = async (who: Principal, name: string, input: Record<string, unknown>) => (await call(who, name, input)).body as any;
  const session = async (title: string, end: Record<string, unknown> = {}, state?: Record<string, unknown>) => {
    const s = (await body(agent, "start_build_session", { title })).session;
    if (state) await body(agent, "put_build_session_current_state", { session_id: s.id, focus: "", next_steps: [], blockers: [], open_questions: [], files_in_flight: [], notes_md: "", ...state });
    world.clock.advance(60_000);
    await body(agent, "end_build_session", { session_id: s.id, ...end });
    world.clock.advance(60_000);
    return s.id as string;
  };

  beforeEach(async () => {
    world = createInMemoryDeps();
    ws = await seedTestWorkspace(world.deps.stores);
    agent = await seedPrincipal(world.deps.stores, ws, { friendlyName: "builder" });
    projectId = (await body(agent, "create_project", { name: "Learning", attributes: { runtime: "node" } })).id;
  });

  it("session learnings become one candidate across sessions, ready at two; detect twice adds nothing; promote makes a lesson with the evidence as observations", async () => {
    const s1 = await session("one", { learnings: ["Run migrations with the advisory lock held"] });
    const s2 = await session("two", { learnings: ["Always run migrations with the advisory lock held!"] });
    const first = await body(agent, "detect_lesson_candidates", {});
    expect(first.created).toHaveLength(1);
    const c = first.created[0];
    expect(c).toMatchObject({ detector: "session_learning", status: "pending", observation_count: 2, distinct_session_count: 2, score: 2 * 2 + 2 + 1, ready: true });
    expect(c.evidence.map((e: { build_session_id: string }) => e.build_session_id).sort()).toEqual([s1, s2].sort());
    const again = await body(agent, "detect_lesson_candidates", {});
    expect(again).toMatchObject({ created: [], updated: [], unchanged: 1 });
    expect((await body(agent, "get_project", { project_id: projectId })).counts).toMatchObject({ pending_candidates: 1, lessons: 0 });
    const promoted = await body(agent, "promote_lesson_candidate", { lesson_candidate_id: c.id, slug: "migrations-lock" });
    expect(promoted.candidate).toMatchObject({ status: "promoted", promoted_lesson_id: promoted.lesson.id });
    expect(promoted.lesson).toMatchObject({ slug: "migrations-lock", status: "active", observation_count: 2, distinct_session_count: 2, source_candidate_id: c.id });
    const got = await body(agent, "get_lesson", { lesson_id: promoted.lesson.id });
    expect(got.observations).toHaveLength(2);
    expect(await outcomeOf(call(agent, "promote_lesson_candidate", { lesson_candidate_id: c.id }))).toMatchObject({ status: 409, reason: "not_pending" });
    expect(await body(agent, "detect_lesson_candidates", {})).toMatchObject({ created: [], updated: [] });
    expect((await body(agent, "get_project", { project_id: projectId })).counts).toMatchObject({ pending_candidates: 0, lessons: 1 });
  });

  it("detects each of the five kinds deterministically", async () => {
    await session("a", {}, { blockers: ["CI runner out of disk space"] });
    await session("b", {}, { blockers: ["The CI runner is out of disk space again"] });
    const d = await body(agent, "record_decision", { title: "Queue table", decision_md: "One table." });
    await body(agent, "correct_decision", { decision_id: d.id, decision_md: "Two tables.", rationale_md: "Hot rows." });
    const fixed = await body(agent, "create_backlog_item", { title: "Login button misaligned on mobile", skip_triage: true });
    await body(agent, "close_backlog_item", { backlog_item_id: fixed.id, outcome: "resolved", commit_sha: "abcdef1" });
    world.clock.advance(1000);
    await body(agent, "create_backlog_item", { title: "Login button misaligned on mobile again" });
    const churn = await body(agent, "create_backlog_item", { title: "Flaky websocket test", skip_triage: true });
    await body(agent, "assign_backlog_item", { backlog_item_id: churn.id });
    const other = await seedPrincipal(world.deps.stores, ws, { friendlyName: "other" });
    await body(agent, "reassign_backlog_item", { backlog_item_id: churn.id, assignee_ai_account_id: other.account.id, reason: "swap" });
    await body(agent, "reassign_backlog_item", { backlog_item_id: churn.id, assignee_ai_account_id: agent.account.id, reason: "back" });
    await body(agent, "start_build_session", { title: "lead" }).then((r) => body(agent, "prepend_build_session_lead", { session_id: r.session.id, text: "GOTCHA: the embedded postgres needs a free port" }));
    const r = await body(agent, "detect_lesson_candidates", {});
    const byDetector = Object.fromEntries(r.created.map((c: { detector: string }) => [c.detector, c]));
    expect(Object.keys(byDetector).sort()).toEqual(["backlog_churn", "backlog_regression", "decision_correction", "repeated_note", "session_learning"]);
    expect(byDetector.decision_correction).toMatchObject({ title: "Decision #1 reversed: Queue table", ready: true, score: 0 * 2 + 1 + 3 });
    expect(byDetector.backlog_regression).toMatchObject({ ready: true });
    expect(byDetector.repeated_note).toMatchObject({ distinct_session_count: 2, ready: true });
    expect(byDetector.backlog_churn.evidence).toHaveLength(2);
    const counts = await body(agent, "count_lesson_candidates", {});
    expect(counts.by_status.pending).toBe(5);
    const listed = await body(agent, "list_lesson_candidates", { limit: 2 });
    expect(listed.items).toHaveLength(2);
    expect(listed.items[0].score).toBeGreaterThanOrEqual(listed.items[1].score);
    const rest = await body(agent, "list_lesson_candidates", { limit: 2, cursor: listed.next_cursor });
    expect(rest.items).toHaveLength(2);
    expect(await body(agent, "detect_lesson_candidates", {})).toMatchObject({ created: [], updated: [], unchanged: 5 });
    const dry = await body(agent, "detect_lesson_candidates", { dry_run: true, detectors: ["decision_correction"] });
    expect(dry).toMatchObject({ created: [], dry_run: true });
  });

  it("lessons: slug conflicts, observations count distinct sessions, status moves, delete guarded by active rules", async () => {
    const l = await body(agent, "create_lesson", { title: "Pin the Node version", body_md: "Do: pin `node` in `.nvmrc`.", tags: ["tooling"] });
    expect(l).toMatchObject({ slug: "pin-the-node-version", observation_count: 0 });
    expect(await outcomeOf(call(agent, "create_lesson", { title: "Pin the Node version", body_md: "x" }))).toMatchObject({ status: 409, reason: "slug_taken" });
    const s = (await body(agent, "start_build_session", { title: "s" })).session.id;
    await body(agent, "observe_lesson", { lesson_id: l.id, note: "bit us again" });
    const o2 = await body(agent, "observe_lesson", { lesson_id: l.id, note: "and again", build_session_id: s, evidence: { kind: "commit", ref: "abc1234" } });
    expect(o2).toMatchObject({ observation_count: 2, distinct_session_count: 1 });
    expect((await body(agent, "get_lesson_by_slug", { slug: "pin-the-node-version" })).observations[0]).toMatchObject({ note: "and again", evidence: { kind: "commit" } });
    expect((await body(agent, "list_lessons", { q: "node" })).items).toHaveLength(1);
    expect((await body(agent, "list_lessons", { tag: "nope" })).items).toHaveLength(0);
    const retired = await body(agent, "set_lesson_status", { lesson_id: l.id, status: "retired", reason: "nvm gone" });
    expect(retired.status).toBe("retired");
    expect(await outcomeOf(call(agent, "derive_rule", { lesson_id: l.id, triggers: { paths: ["**"] } }))).toMatchObject({ status: 409, reason: "lesson_not_active" });
    await body(agent, "set_lesson_status", { lesson_id: l.id, status: "active", reason: "back" });
    const rule = await body(agent, "derive_rule", { lesson_id: l.id });
    expect(rule.triggers.paths).toEqual([".nvmrc"]);
    expect(await outcomeOf(call(agent, "delete_lesson", { lesson_id: l.id }))).toMatchObject({ status: 409, reason: "has_active_rules" });
    await body(agent, "archive_rule", { rule_id: rule.id, reason: "done" });
    const newer = await body(agent, "create_lesson", { title: "Use Volta", body_md: "Do: use volta." });
    expect(await outcomeOf(call(agent, "set_lesson_status", { lesson_id: l.id, status: "superseded", reason: "r", superseded_by_id: l.id }))).toMatchObject({ status: 400 });
    expect((await body(agent, "set_lesson_status", { lesson_id: l.id, status: "superseded", reason: "volta", superseded_by_id: newer.id })).status).toBe("superseded");
    expect(await outcomeOf(call(agent, "observe_lesson", { lesson_id: l.id, note: "x" }))).toMatchObject({ status: 409, reason: "superseded" });
    await body(agent, "delete_lesson", { lesson_id: l.id });
    expect(await outcomeOf(call(agent, "get_lesson", { lesson_id: l.id }))).toMatchObject({ status: 404 });
    expect((await body(agent, "create_lesson", { title: "Pin the Node version", body_md: "again" })).slug).toBe("pin-the-node-version");
  });

  it("rules: derive with inferred or given triggers, no_trigger with suggestions, bad globs and patterns, supersede keeps the slug, applicable ordering", async () => {
    const l = await body(agent, "create_lesson", { title: "Migrations are append-only", body_md: "Don't modify files under `packages/postgres/migrations/**` once merged; add a new migration.\nNever call /DROP\\s+TABLE/ there." });
    const inferred = await body(agent, "derive_rule", { lesson_id: l.id, level: "must" });
    expect(inferred.triggers).toMatchObject({ paths: ["packages/postgres/migrations/**"], operations: ["modify"], code_patterns: ["DROP\\s+TABLE"] });
    const plain = await body(agent, "create_lesson", { title: "Be kind", body_md: "Write good messages." });
    expect(await outcomeOf(call(agent, "derive_rule", { lesson_id: plain.id }))).toMatchObject({ status: 400, code: "SVC_MALFORMED_REQUEST", reason: "no_trigger" });
    expect(await outcomeOf(call(agent, "derive_rule", { lesson_id: plain.id, triggers: { paths: ["/etc/x"] } }))).toMatchObject({ status: 400 });
    expect(await outcomeOf(call(agent, "derive_rule", { lesson_id: plain.id, triggers: { code_patterns: ["(a"] } }))).toMatchObject({ status: 400, reason: "bad_pattern" });
    expect(await outcomeOf(call(agent, "derive_rule", { lesson_id: plain.id, triggers: { code_patterns: ["(a)\\1"] } }))).toMatchObject({ status: 400, reason: "bad_pattern" });
    expect(await outcomeOf(call(agent, "derive_rule", { lesson_id: plain.id, triggers: { languages: ["klingon"] } }))).toMatchObject({ status: 400, reason: "unknown_language" });
    const always = await body(agent, "derive_rule", { lesson_id: plain.id, always_apply: true, level: "may" });
    const ts = await body(agent, "derive_rule", { lesson_id: plain.id, slug: "ts-only", triggers: { languages: ["typescript"], operations: ["create", "modify"] } });
    const apply = (input: Record<string, unknown>) => body(agent, "find_applicable_rules", input);
    const hit = await apply({ paths: ["packages/postgres/migrations/0001_init.sql"], operations: ["modify"], code: ["DROP  TABLE x;"] });
    expect(hit.rules.map((r: { rule: { slug: string } }) => r.rule.slug)).toEqual([inferred.slug, always.slug]);
    expect(hit.rules[0].matched).toMatchObject({ paths: [{ path: "packages/postgres/migrations/0001_init.sql", glob: "packages/postgres/migrations/**" }], operations: ["modify"], code_patterns: [{ pattern: "DROP\\s+TABLE", snippet_index: 0 }] });
    expect(hit.evaluated).toBe(3);
    const noCode = await apply({ paths: ["packages/postgres/migrations/0001_init.sql"], operations: ["modify"] });
    expect(noCode.rules.map((r: { rule: { slug: string } }) => r.rule.slug)).toEqual([always.slug]);
    const tsChange = await apply({ paths: ["src/a.ts"], operations: ["create"] });
    expect(tsChange.rules.map((r: { rule: { slug: string } }) => r.rule.slug)).toEqual(["ts-only", always.slug]);
    expect(tsChange.rules[0].matched.languages).toEqual(["typescript"]);
    expect(await outcomeOf(call(agent, "find_applicable_rules", { paths: ["../x"], operations: ["modify"] }))).toMatchObject({ status: 400 });
    const v2 = await body(agent, "derive_rule", { lesson_id: l.id, supersedes_rule_id: inferred.id, level: "should", triggers: { paths: ["packages/postgres/migrations/*.sql"] } });
    expect(v2).toMatchObject({ slug: inferred.slug, supersedes_rule_id: inferred.id, status: "active" });
    expect((await body(agent, "get_rule", { rule_id: inferred.id })).status).toBe("archived");
    expect((await body(agent, "get_rule_by_slug", { slug: inferred.slug })).id).toBe(v2.id);
    expect(await outcomeOf(call(agent, "derive_rule", { lesson_id: l.id, slug: "ts-only", triggers: { paths: ["x"] } }))).toMatchObject({ status: 409, reason: "slug_taken" });
    expect((await body(agent, "list_rules", { path: "packages/postgres/migrations/1.sql" })).items.map((r: { id: string }) => r.id)).toEqual([v2.id]);
    expect((await body(agent, "list_rules", { language: "typescript" })).items.map((r: { id: string }) => r.id)).toEqual([ts.id]);
    expect((await body(agent, "list_rules", { status: "any" })).items).toHaveLength(4);
  });

  it("enrich: first computes, the same input is unchanged, a changed input is 409 until reenrich", async () => {
    const l = await body(agent, "create_lesson", { title: "Tabs in Makefiles", body_md: "Do: indent `Makefile` recipes with tabs." });
    const r1 = await body(agent, "derive_rule", { lesson_id: l.id });
    const e1 = await body(agent, "enrich_rule", { rule_id: r1.id });
    expect(e1).toMatchObject({ changed: true, rule: { version: 2, enrichment: { enricher: "heuristic-v1", keywords: expect.arrayContaining(["tabs"]) } } });
    expect(await body(agent, "enrich_rule", { rule_id: r1.id })).toMatchObject({ changed: false, rule: { version: 2 } });
    const l2 = await body(agent, "create_lesson", { title: "Spaces in Makefiles", body_md: "Don't indent `Makefile` recipes with tabs." });
    const r2 = await body(agent, "derive_rule", { lesson_id: l2.id });
    expect(await outcomeOf(call(agent, "enrich_rule", { rule_id: r1.id }))).toMatchObject({ status: 409, reason: "enrichment_stale" });
    const re = await body(agent, "reenrich_rule", { rule_id: r1.id });
    expect(re.rule.version).toBe(3);
    expect(re.changes).toContain("related");
    expect(re.rule.enrichment.conflicts.map((c: { rule_id: string }) => c.rule_id)).toEqual([r2.id]);
    expect(re.rule.enrichment.duplicates.map((c: { rule_id: string }) => c.rule_id)).toEqual([r2.id]);
  });

  it("writes an audit row for every learning mutation", async () => {
    const seen = new Set<string>();
    const run = async (name: string, input: Record<string, unknown>) => {
      const count = () => world.tables.messaging.audit.values().filter((r) => r.activity === LEARNING_AUDITED[name] && r.workspaceId === ws.id).length;
      const before = count();
      const out = await body(agent, name, input);
      if (count() > before) seen.add(name);
      return out;
    };
    await session("x", { learnings: ["Cache the pnpm store in CI"] });
    await session("y", { learnings: ["Seed test data through the API"] });
    const detected = await run("detect_lesson_candidates", {});
    const [c1, c2] = detected.created;
    await run("observe_lesson_candidate", { lesson_candidate_id: c1.id, note: "seen again" });
    await run("reject_lesson_candidate", { lesson_candidate_id: c2.id, reason: "obvious" });
    const { lesson } = await run("promote_lesson_candidate", { lesson_candidate_id: c1.id });
    const l2 = await run("create_lesson", { title: "Other", body_md: "Do: keep `pnpm-lock.yaml` committed." });
    await session("z", { learnings: ["Keep the lockfile committed always"] });
    const c3 = (await body(agent, "detect_lesson_candidates", {})).created[0];
    await run("supersede_lesson_candidate", { lesson_candidate_id: c3.id, lesson_id: l2.id, reason: "same" });
    await run("observe_lesson", { lesson_id: lesson.id, note: "n" });
    const rule = await run("derive_rule", { lesson_id: l2.id });
    await run("enrich_rule", { rule_id: rule.id });
    await run("reenrich_rule", { rule_id: rule.id });
    await run("archive_rule", { rule_id: rule.id, reason: "r" });
    await run("set_lesson_status", { lesson_id: l2.id, status: "retired", reason: "r" });
    await run("delete_lesson", { lesson_id: l2.id });
    const imported = await run("upload_import", { parser: "lessons-list", filename: "LESSONS.md", content: "## Keep diffs small\nDo: one change per commit.\n" });
    await run("commit_import", { import_id: imported.id });
    expect([...seen].sort()).toEqual(Object.keys(LEARNING_AUDITED).sort());
  });

  it("a project-restricted credential sees only its project's lessons, candidates and rules", async () => {
    const other = await body(agent, "create_project", { name: "Other" });
    const mine = await body(agent, "create_lesson", { project_id: other.id, title: "Mine", body_md: "Do: `x.ts`." });
    const theirs = await body(agent, "create_lesson", { title: "Theirs", body_md: "Do: `y.ts`." });
    const rule = await body(agent, "derive_rule", { lesson_id: theirs.id });
    const restricted = await seedPrincipal(world.deps.stores, ws);
    restricted.credential.projectId = other.id;
    expect(await outcomeOf(call(restricted, "get_lesson", { lesson_id: theirs.id }))).toMatchObject({ status: 404 });
    expect(await outcomeOf(call(restricted, "get_rule", { rule_id: rule.id }))).toMatchObject({ status: 404 });
    expect(await outcomeOf(call(restricted, "derive_rule", { lesson_id: theirs.id }))).toMatchObject({ status: 404 });
    expect((await body(restricted, "list_lessons", {})).items.map((l: { id: string }) => l.id)).toEqual([mine.id]);
    expect((await body(restricted, "find_applicable_rules", { paths: ["y.ts"], operations: ["modify"] })).rules).toEqual([]);
  });
});
