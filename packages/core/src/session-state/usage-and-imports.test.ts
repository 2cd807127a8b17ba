import { beforeEach, describe, expect, it } from "vitest";
import type { Principal, Workspace } from "../access/model.ts";
import { createInMemoryDeps, type InMemoryWorld } from "../testing/create-in-memory-deps.ts";
import { callOperation } from "../testing/guard-rail-calls.ts";
import { seedPrincipal, seedTestWorkspace } from "../testing/principal-fixtures.ts";
import { outcomeOf } from "../testing/session-state-tables.contract.ts";
import { fixture } from "./imports/fixtures/fixtures.ts";

// Usage and the markdown import through the catalogue, in memory (SESSION-STATE §9-10).


describe("session-state operations: usage and the markdown import (in memory)", () => {
  let world: InMemoryWorld;
  let ws: Workspace;
  let agent: Principal;
  const call = (who: Principal, name: string, input: Record<string, unknown>) => callOperation(world.deps, who, name, input);
  const body = async (who: Principal, name: string, input: Record<string, unknown>) => (await call(who, name, input)).body as any;

  beforeEach(async () => {
    world = createInMemoryDeps();
    ws = await seedTestWorkspace(world.deps.stores);
    agent = await seedPrincipal(world.deps.stores, ws, { friendlyName: "builder" });
    await body(agent, "create_project", { name: "Records" });
  });

  it("usage: cumulative reports per model, differences per period, a retried report adds nothing, a smaller one is refused", async () => {
    const s = (await body(agent, "start_build_session", { title: "costly" })).session.id;
    const report = (model: string, input: number, cost: number) => ({ model, input_tokens: input, output_tokens: Math.floor(input / 10), cost_micro_usd: cost });
    await body(agent, "ping_build_session", { session_id: s, usage: [report("opus", 1000, 1_500_000), report("haiku", 200, 1_000)] });
    world.clock.advance(86_400_000);
    await body(agent, "ping_build_session", { session_id: s, usage: [report("opus", 3000, 4_500_000)] });
    await body(agent, "ping_build_session", { session_id: s, usage: [report("opus", 3000, 4_500_000)] });
    expect(await outcomeOf(call(agent, "ping_build_session", { session_id: s, usage: [report("opus", 2999, 4_500_000)] }))).toMatchObject({ status: 400, code: "SVC_MALFORMED_REQUEST", reason: "usage_decreased" });
    expect(await outcomeOf(call(agent, "ping_build_session", { session_id: s, usage: [report("opus", 1, 1), report("opus", 2, 2)] }))).toMatchObject({ status: 400 });
    await body(agent, "end_build_session", { session_id: s, usage: [report("opus", 4000, 6_000_001)] });
    const byModel = await body(agent, "get_usage", {});
    expect(byModel.rows).toEqual([
      expect.objectContaining({ group: { model: "haiku" }, sessions: 1, input_tokens: 200, output_tokens: 20, total_tokens: 220, cost_usd: "0.001000" }),
      expect.objectContaining({ group: { model: "opus" }, sessions: 1, input_tokens: 4000, output_tokens: 400, total_tokens: 4400, cost_usd: "6.000001" }),
    ]);
    expect(byModel.totals).toMatchObject({ input_tokens: 4200, cost_usd: "6.001001", sessions: 1 });
    const byDay = await body(agent, "get_usage", { group_by: "period,model", period: "day" });
    expect(byDay.rows.map((r: { group: Record<string, string>; input_tokens: number }) => [r.group.model, r.input_tokens])).toEqual([["haiku", 200], ["opus", 1000], ["opus", 3000]]);
    const bySession = await body(agent, "get_usage", { group_by: "session", since: new Date(world.clock.now().getTime() - 3_600_000).toISOString() });
    expect(bySession.rows).toEqual([expect.objectContaining({ group: { session: s }, input_tokens: 3000, cost_usd: "4.500001" })]);
    expect((await body(agent, "get_build_session_aggregate", { session_id: s })).usage).toMatchObject({ input_tokens: 4200, cost_usd: "6.001001" });
    expect(await outcomeOf(call(agent, "get_usage", { group_by: "model,session,period" }))).toMatchObject({ status: 400 });
    expect(await outcomeOf(call(agent, "get_usage", { group_by: "period", period: "day", since: "2020-01-01T00:00:00.000Z" }))).toMatchObject({ status: 400 });
  });

  it("import: BACKLOG.md previews with a status per row, commits in one go, and importing it again creates nothing", async () => {
    const content = fixture("BACKLOG.md");
    const parsers = await body(agent, "list_import_parsers", {});
    expect(parsers.map((p: { name: string }) => p.name)).toEqual(["decisions-madr", "decisions-log", "backlog-checklist", "lessons-list"]);
    const preview = await body(agent, "upload_import", { parser: "backlog-checklist", filename: "BACKLOG.md", content });
    expect(preview).toMatchObject({ status: "previewed", counts: { rows: 5, ready: 5, invalid: 0, duplicate: 0 }, created: null });
    expect((await body(agent, "search_backlog", {})).items).toHaveLength(0);
    const committed = await body(agent, "commit_import", { import_id: preview.id });
    expect(committed).toMatchObject({ status: "committed", created: 5, skipped: 0 });
    expect(await outcomeOf(call(agent, "commit_import", { import_id: preview.id }))).toMatchObject({ status: 409, reason: "already_committed" });
    const items = (await body(agent, "search_backlog", { sort: "oldest" })).items;
    expect(items.map((i: { title: string; status: string; priority: number }) => [i.title, i.status, i.priority])).toEqual([
      ["Retry webhook deliveries with jitter", "open", 0],
      ["Fix the login redirect loop", "resolved", 0],
      ["Dashboard for dead letters", "open", 1],
      ["Document the CLI exit codes", "open", 3],
      ["Try a bloom filter for idempotency keys", "open", 2],
    ]);
    expect(items[1]).toMatchObject({ closing: { notes_md: ["imported as done from BACKLOG.md:7"] }, source: { import_row: `${preview.id}#2` } });
    const rows = await body(agent, "list_import_rows", { import_id: preview.id, limit: 2 });
    expect(rows.items.map((r: { status: string }) => r.status)).toEqual(["created", "created"]);
    expect(rows.items[0].created_record_id).toBe(items[0].id);
    const again = await body(agent, "upload_import", { parser: "backlog-checklist", filename: "BACKLOG.md", content });
    expect(again.counts).toEqual({ rows: 5, ready: 0, invalid: 0, duplicate: 5 });
    expect((await body(agent, "list_import_rows", { import_id: again.id, status: "duplicate" })).items[0].existing_record_id).toBe(items[0].id);
    expect(await body(agent, "commit_import", { import_id: again.id })).toMatchObject({ created: 0, skipped: 5 });
    expect((await body(agent, "search_backlog", {})).items).toHaveLength(5);
    expect((await body(agent, "list_imports", { status: "committed" })).items.map((i: { id: string }) => i.id)).toEqual([again.id, preview.id]);
  });

  it("import: a MADR file's superseded record becomes a decision and its successor a correction; lessons and DECISIONS.md; invalid rows are skipped", async () => {
    const madr = await body(agent, "upload_import", { parser: "decisions-madr", filename: "madr.md", content: fixture("madr.md") });
    await body(agent, "commit_import", { import_id: madr.id });
    const decisions = (await body(agent, "list_decisions", {})).items;
    expect(decisions.map((d: { kind: string; title: string; status: string }) => [d.kind, d.title, d.status])).toEqual([
      ["correction", "Wake workers with LISTEN/NOTIFY", "active"],
      ["decision", "Poll the queue every second", "superseded"],
    ]);
    expect(decisions[1]).toMatchObject({ source: { kind: "import", ref: `${madr.id}#1` }, decided_at: "2026-02-10T00:00:00.000Z", alternatives: [{ option: "Poll every second", chosen: true }, { option: "LISTEN/NOTIFY", chosen: false }] });
    const log = await body(agent, "upload_import", { parser: "decisions-log", filename: "DECISIONS.md", content: fixture("DECISIONS.md") });
    expect(log.counts).toEqual({ rows: 3, ready: 3, invalid: 0, duplicate: 0 });
    const lessons = await body(agent, "upload_import", { parser: "lessons-list", filename: "LESSONS.md", content: fixture("LESSONS.md") });
    expect(lessons.counts).toEqual({ rows: 3, ready: 2, invalid: 1, duplicate: 0 });
    expect(await body(agent, "commit_import", { import_id: lessons.id })).toMatchObject({ created: 2, skipped: 1 });
    expect((await body(agent, "get_lesson_by_slug", { slug: "pin-the-node-version" })).source).toMatchObject({ kind: "import", ref: `${lessons.id}#1` });
    const items = await body(agent, "upload_import", { parser: "lessons-list", filename: "LESSONS-items.md", content: fixture("LESSONS-items.md") });
    expect(items.counts).toEqual({ rows: 3, ready: 2, invalid: 0, duplicate: 1 });
    expect(await outcomeOf(call(agent, "upload_import", { parser: "lessons-list", filename: "x.md", content: "x".repeat(200 * 1024 + 1) }))).toMatchObject({ status: 400 });
    expect(await outcomeOf(call(agent, "upload_import", { parser: "nope", filename: "x.md", content: "" }))).toMatchObject({ status: 400 });
  });
});
