import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { LEARNING_AUDITED } from "@agentq/core/testing";
import { errorCodeOf, structured } from "@agentq/mcp/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSessionStateServer, type SessionStateServer } from "./testing/session-state-server.ts";

// Issue 17's Done-when, on the composed server over PostgreSQL with real HTTP: a
// session's learnings become a lesson candidate, the candidate is promoted to a lesson, a rule is
// derived from it, and POST /v1/rules/applicable returns the rule for a matching change and not
// for others; an imported BACKLOG.md becomes backlog items and importing it again creates none.
// Usage, the CLI commands, and every learning and import write as an MCP tool (the SDK client).

type Json = Record<string, any>;

describe("the learning loop over REST and MCP (PostgreSQL, real HTTP)", () => {
  let s: SessionStateServer;
  beforeAll(async () => {
    s = await startSessionStateServer("learning-loop");
  });
  afterAll(async () => {
    await s?.close();
  });

  it("REST: learnings -> candidate -> lesson -> rule -> applicable for a matching change only", async () => {
    const a = await s.agent("learner");
    const project = await s.ok(a.token, "POST", "/v1/projects", { name: "Loop", attributes: { runtime: "node" } });
    const learning = "Never modify an applied migration under `packages/postgres/migrations/**`; add a new one.";
    for (const title of ["Monday", "Tuesday"]) {
      const started = await s.ok(a.token, "POST", "/v1/build-sessions", { project_id: project.id, title });
      await s.ok(a.token, "POST", `/v1/build-sessions/${started.session.id as string}/end`, { summary_md: "done", learnings: [title === "Monday" ? learning : `${learning} Really.`] });
    }
    const detected = await s.ok(a.token, "POST", "/v1/lesson-candidates/detect", { project_id: project.id });
    expect(detected.created).toHaveLength(1);
    const candidate = detected.created[0] as Json;
    expect(candidate).toMatchObject({ detector: "session_learning", distinct_session_count: 2, ready: true, status: "pending" });
    expect(await s.ok(a.token, "POST", "/v1/lesson-candidates/detect", { project_id: project.id })).toMatchObject({ created: [], updated: [], unchanged: 1 });
    const started = await s.ok(a.token, "POST", "/v1/build-sessions", { project_id: project.id, title: "Wednesday" });
    expect(started.briefing.pending_lesson_candidates).toBe(1);

    const promoted = await s.ok(a.token, "POST", `/v1/lesson-candidates/${candidate.id as string}/promote`, { slug: "migrations-append-only" });
    const lesson = promoted.lesson as Json;
    expect(lesson).toMatchObject({ slug: "migrations-append-only", status: "active", observation_count: 2, distinct_session_count: 2, source_candidate_id: candidate.id });
    expect((await s.ok(a.token, "GET", `/v1/lessons/by-slug?project_id=${project.id as string}&slug=migrations-append-only`)).observations).toHaveLength(2);

    const rule = await s.ok(a.token, "POST", "/v1/rules/derive", { lesson_id: lesson.id, level: "must" });
    expect(rule).toMatchObject({ status: "active", level: "must", source_lesson_id: lesson.id, triggers: { paths: ["packages/postgres/migrations/**"], operations: ["modify"] } });
    const applicable = (body: Json) => s.ok(a.token, "POST", "/v1/rules/applicable", { project_id: project.id, ...body });
    const hit = await applicable({ paths: ["packages/postgres/migrations/0003_x.sql", "README.md"], operations: ["modify"] });
    expect(hit).toMatchObject({ evaluated: 1, rules: [{ rule: { id: rule.id }, matched: { paths: [{ path: "packages/postgres/migrations/0003_x.sql", glob: "packages/postgres/migrations/**" }], operations: ["modify"] } }] });
    expect((await applicable({ paths: ["packages/postgres/migrations/0004_new.sql"], operations: ["create"] })).rules).toEqual([]);
    expect((await applicable({ paths: ["apps/rest/src/app.ts"], operations: ["modify"] })).rules).toEqual([]);
    expect((await applicable({ paths: [], operations: ["modify"] })).rules).toEqual([]);
    const bad = await s.rest(a.token, "POST", "/v1/rules/applicable", { project_id: project.id, paths: ["../etc/passwd"], operations: ["modify"] });
    expect(bad).toMatchObject({ status: 400, body: { error: { code: "SVC_MALFORMED_REQUEST" } } });

    const counts = (await s.ok(a.token, "GET", `/v1/projects/${project.id as string}`)).counts;
    expect(counts).toMatchObject({ lessons: 1, active_rules: 1, pending_candidates: 0 });
    const aggregate = await s.ok(a.token, "GET", `/v1/build-sessions/${started.session.id as string}/aggregate`);
    expect(aggregate).toMatchObject({ lessons: { created: 1 }, candidates: { promoted: 1 } });
    const [row] = await s.db.sql<{ n: number }[]>`select count(*)::int as n from audit_log where activity like 'lesson%' or activity like 'rule.%'`;
    expect(row?.n).toBeGreaterThanOrEqual(3);
  });

  it("REST: an imported BACKLOG.md becomes backlog items, and importing it again creates none", async () => {
    const a = await s.agent("importer");
    const project = await s.ok(a.token, "POST", "/v1/projects", { name: "Imported" });
    const content = "# Backlog\n\n## P0\n- [ ] Retry webhooks with jitter #webhooks\n  Backoff alone bunches retries.\n- [x] Fix the login redirect #bug\n\n## P2\n- [ ] Dead-letter dashboard (P1) #feature\n";
    const upload = () => s.ok(a.token, "POST", "/v1/session-state/imports/upload", { project_id: project.id, parser: "backlog-checklist", filename: "BACKLOG.md", content });
    const preview = await upload();
    expect(preview).toMatchObject({ status: "previewed", counts: { rows: 3, ready: 3, invalid: 0, duplicate: 0 } });
    const committed = await s.ok(a.token, "POST", `/v1/session-state/imports/${preview.id as string}/commit`, {});
    expect(committed).toMatchObject({ status: "committed", created: 3, skipped: 0 });
    expect((await s.rest(a.token, "POST", `/v1/session-state/imports/${preview.id as string}/commit`, {})).status).toBe(409);
    const items = (await s.ok(a.token, "GET", `/v1/backlog/search?project_id=${project.id as string}&sort=oldest`)).items as Json[];
    expect(items.map((i) => [i.title, i.status, i.priority, i.labels])).toEqual([
      ["Retry webhooks with jitter", "open", 0, ["webhooks"]],
      ["Fix the login redirect", "resolved", 0, ["bug"]],
      ["Dead-letter dashboard", "open", 1, ["feature"]],
    ]);
    expect(items[1]).toMatchObject({ kind: "bug", closing: { notes_md: ["imported as done from BACKLOG.md:6"] }, source: { import_row: `${preview.id as string}#2` } });
    const again = await upload();
    expect(again.counts).toEqual({ rows: 3, ready: 0, invalid: 0, duplicate: 3 });
    expect(await s.ok(a.token, "POST", `/v1/session-state/imports/${again.id as string}/commit`, {})).toMatchObject({ created: 0, skipped: 3 });
    expect(((await s.ok(a.token, "GET", `/v1/backlog/search?project_id=${project.id as string}`)).items as Json[]).length).toBe(3);
    const rows = await s.ok(a.token, "GET", `/v1/session-state/imports/${again.id as string}/rows?status=skipped_duplicate`);
    expect((rows.items as Json[]).map((r) => r.existing_record_id)).toEqual(items.map((i) => i.id));
    const [fp] = await s.db.sql<{ n: number }[]>`select count(*)::int as n from session_import_fingerprints where project_id = ${project.id as string}`;
    expect(fp?.n).toBe(3);
  });

  it("REST: usage reported on ping and end, summed per model with money as exact decimals", async () => {
    const a = await s.agent("spender");
    const project = await s.ok(a.token, "POST", "/v1/projects", { name: "Spend" });
    const started = await s.ok(a.token, "POST", "/v1/build-sessions", { project_id: project.id, title: "costly" });
    const id = started.session.id as string;
    await s.ok(a.token, "POST", `/v1/build-sessions/${id}/ping`, { usage: [{ model: "opus", input_tokens: 1000, output_tokens: 100, cost_micro_usd: 1_234_567 }] });
    await s.ok(a.token, "POST", `/v1/build-sessions/${id}/ping`, { usage: [{ model: "opus", input_tokens: 1000, output_tokens: 100, cost_micro_usd: 1_234_567 }] });
    const refused = await s.rest(a.token, "POST", `/v1/build-sessions/${id}/ping`, { usage: [{ model: "opus", input_tokens: 999 }] });
    expect(refused).toMatchObject({ status: 400, body: { error: { code: "SVC_MALFORMED_REQUEST", details: { reason: "usage_decreased" } } } });
    await s.ok(a.token, "POST", `/v1/build-sessions/${id}/end`, { usage: [{ model: "opus", input_tokens: 5000, output_tokens: 400, cost_micro_usd: 9_000_000_000_001 }, { model: "haiku", input_tokens: 10, cost_micro_usd: 1 }] });
    const usage = await s.ok(a.token, "GET", `/v1/usage?project_id=${project.id as string}&group_by=model`);
    expect(usage.rows).toEqual([
      expect.objectContaining({ group: { model: "haiku" }, input_tokens: 10, cost_usd: "0.000001", sessions: 1 }),
      expect.objectContaining({ group: { model: "opus" }, input_tokens: 5000, output_tokens: 400, total_tokens: 5400, cost_usd: "9000000.000001" }),
    ]);
    expect(usage.totals).toMatchObject({ cost_usd: "9000000.000002", sessions: 1 });
    expect((await s.ok(a.token, "GET", `/v1/build-sessions/${id}/aggregate`)).usage).toMatchObject({ input_tokens: 5010, cost_usd: "9000000.000002" });
  });

  // Each command is a new process (tsx compiles on start): slow under the full suite's load.
  it("CLI: rules applicable, lessons add|list, import, usage with a real agentq process", { timeout: 180_000 }, async () => {
    const a = await s.agent("cli-learner");
    await s.cli(a.token, "project", "create", "--name", "CLI learning", "--default");
    const lesson = await s.cli(a.token, "lessons", "add", "--title", "Tabs in Makefiles", "--body", "Do: indent `Makefile` recipes with tabs.", "--tag", "build");
    expect(lesson).toMatchObject({ slug: "tabs-in-makefiles", tags: ["build"] });
    expect((await s.cli(a.token, "lessons", "list", "--tag", "build")).items.map((l: Json) => l.id)).toEqual([lesson.id]);
    await s.ok(a.token, "POST", "/v1/rules/derive", { lesson_id: lesson.id, level: "must" });
    const applicable = await s.cliText(a.token, "rules", "applicable", "--path", "Makefile", "--path", "src/app.ts", "--op", "modify");
    expect(applicable).toContain("MUST tabs-in-makefiles");
    expect(applicable).toContain("Makefile ~ Makefile");
    expect(await s.cliText(a.token, "rules", "applicable", "--path", "src/app.ts", "--op", "modify")).toContain("no rule applies");
    const file = join(mkdtempSync(join(tmpdir(), "agentq-import-")), "LESSONS.md");
    writeFileSync(file, "## Small commits\nDo: one change per commit.\n\n## \nno title\n");
    const preview = await s.cli(a.token, "import", file, "--parser", "lessons-list");
    expect(preview.import).toMatchObject({ status: "previewed", counts: { ready: 1, invalid: 1 } });
    const committed = await s.cliText(a.token, "import", file, "--parser", "lessons-list", "--commit");
    expect(committed).toMatch(/committed .* created=1 skipped=1/);
    expect((await s.cli(a.token, "import", file, "--parser", "lessons-list", "--commit")).import).toMatchObject({ created: 0, skipped: 2 });
    expect(await s.cliText(a.token, "usage")).toContain("total");
  });

  it("MCP: every learning write as a tool through the SDK client", async () => {
    const a = await s.agent("mcp-learner");
    const { client: mcp, tool, called } = await s.mcp(a.token);
    try {
      const project = await tool("create_project", { name: "MCP loop" });
      const learnings = ["Cache the pnpm store between CI runs", "Seed fixtures through the public API only", "Embedded postgres wants a free port"];
      for (const learning of learnings) {
        const started = await tool("start_build_session", { project_id: project.id, title: learning });
        await tool("end_build_session", { session_id: started.session.id, learnings: [learning] });
      }
      const detected = await tool("detect_lesson_candidates", { project_id: project.id });
      const [c1, c2, c3] = detected.created as Json[];
      await tool("observe_lesson_candidate", { lesson_candidate_id: c1?.id, note: "seen in review", evidence: { kind: "url", ref: "https://example.com/r/1" } });
      await tool("reject_lesson_candidate", { lesson_candidate_id: c2?.id, reason: "too specific" });
      const own = await tool("create_lesson", { project_id: project.id, title: "Cache the pnpm store", body_md: "Do: cache `~/.pnpm-store` keyed by `pnpm-lock.yaml`." });
      await tool("supersede_lesson_candidate", { lesson_candidate_id: c3?.id, lesson_id: own.id, reason: "already a lesson" });
      const promoted = await tool("promote_lesson_candidate", { lesson_candidate_id: c1?.id, into_lesson_id: own.id });
      expect(promoted.lesson.observation_count).toBe(2);
      await tool("observe_lesson", { lesson_id: own.id, note: "again" });
      const rule = await tool("derive_rule", { lesson_id: own.id, triggers: { paths: ["pnpm-lock.yaml", ".github/**"] } });
      await tool("enrich_rule", { rule_id: rule.id });
      await tool("reenrich_rule", { rule_id: rule.id });
      const found = await mcp.callTool({ name: "find_applicable_rules", arguments: { project_id: project.id, paths: [".github/workflows/ci.yml"], operations: ["modify"] } });
      expect((structured(found) as Json).rules.map((r: Json) => r.rule.id)).toEqual([rule.id]);
      const refused = await mcp.callTool({ name: "delete_lesson", arguments: { lesson_id: own.id } });
      expect(errorCodeOf(refused)).toBe("SVC_RESOURCE_CONFLICT");
      await tool("archive_rule", { rule_id: rule.id, reason: "moved to CI config" });
      await tool("set_lesson_status", { lesson_id: own.id, status: "retired", reason: "CI caches it now" });
      await tool("delete_lesson", { lesson_id: own.id });
      const preview = await tool("upload_import", { project_id: project.id, parser: "lessons-list", filename: "LESSONS.md", content: "## Keep diffs small\nDo: one change per commit.\n" });
      expect(preview.counts).toMatchObject({ ready: 1 });
      expect(await tool("commit_import", { import_id: preview.id })).toMatchObject({ status: "committed", created: 1 });
      expect([...called].filter((n) => n in LEARNING_AUDITED).sort()).toEqual(Object.keys(LEARNING_AUDITED).sort());
    } finally {
      await mcp.close();
    }
  });
});
