import { beforeEach, describe, expect, it } from "vitest";
import type { CredentialPrincipal, Principal, Workspace } from "../access/model.ts";
import { setWorkspacePlan } from "../plans/set-workspace-plan.ts";
import { createInMemoryDeps, type InMemoryWorld } from "../testing/create-in-memory-deps.ts";
import { callOperation } from "../testing/guard-rail-calls.ts";
import { seedPrincipal, seedTestWorkspace } from "../testing/principal-fixtures.ts";
import { outcomeOf } from "../testing/session-state-tables.contract.ts";
import { SESSION_STATE_OPERATIONS } from "./operations.ts";
import { LEARNING_AUDITED, RECORDS_AUDITED as AUDITED } from "../testing/session-state-audited.ts";

describe("session-state operations: projects and the decision log (in memory)", () => {
  let world: InMemoryWorld;
  let ws: Workspace;
  let agent: CredentialPrincipal;
  const call = (who: Principal, name: string, input: Record<string, unknown>) => callOperation(world.deps, who, name, input);
  const body = async (who: Principal, name: string, input: Record<string, unknown>) => (await call(who, name, input)).body as any;

  beforeEach(async () => {
    world = createInMemoryDeps();
    ws = await seedTestWorkspace(world.deps.stores);
    agent = await seedPrincipal(world.deps.stores, ws, { friendlyName: "builder" });
  });

  it("creates projects: the first is the default, slugs derive from the name (suffixed when taken), created_by comes from the credential", async () => {
    const p1 = await body(agent, "create_project", { name: "Queue Service!" });
    expect(p1).toMatchObject({ slug: "queue-service", is_default: true, state: "active", version: 1, created_by: { ai_account_id: agent.account.id, friendly_name: "builder" }, settings: { backlog_stale_after: "P30D", session_silence_after: "PT30M" } });
    const p2 = await body(agent, "create_project", { name: "Queue service" });
    expect(p2).toMatchObject({ slug: "queue-service-2", is_default: false });
    expect(await outcomeOf(call(agent, "create_project", { name: "x", slug: "queue-service" }))).toMatchObject({ status: 409, code: "SVC_RESOURCE_CONFLICT", reason: "slug_taken" });
    const p3 = await body(agent, "create_project", { name: "Third", make_default: true });
    expect(p3.is_default).toBe(true);
    expect((await body(agent, "get_project", { project_id: p1.id })).is_default).toBe(false);
    const list = await body(agent, "list_projects", { limit: "2" });
    expect(list.items.map((p: { id: string }) => p.id)).toEqual([p1.id, p2.id]);
    const next = await body(agent, "list_projects", { limit: "2", cursor: list.next_cursor });
    expect(next).toMatchObject({ items: [{ id: p3.id }], next_cursor: null });
  });

  it("refuses bad project fields with SVC_MALFORMED_REQUEST", async () => {
    for (const input of [{ name: " " }, { name: "a", slug: "Bad Slug" }, { name: "a", attributes: { "Bad Key": "v" } }, { name: "a", settings: { backlog_stale_after: "PT1S" } }, { name: "a", repository_url: "not a url" }]) {
      expect(await outcomeOf(call(agent, "create_project", input)), JSON.stringify(input)).toMatchObject({ status: 400, code: "SVC_MALFORMED_REQUEST" });
    }
  });

  it("caps active projects by plan; archiving frees a slot and unarchiving checks the cap again", async () => {
    await setWorkspacePlan(world.deps, { workspaceId: ws.id, plan: "free", overrides: { projects: 2 } });
    const p1 = await body(agent, "create_project", { name: "One" });
    const p2 = await body(agent, "create_project", { name: "Two" });
    expect(await outcomeOf(call(agent, "create_project", { name: "Three" }))).toMatchObject({ status: 403, code: "SVC_PLAN_LIMIT_EXCEEDED" });
    await call(agent, "archive_project", { project_id: p2.id });
    await body(agent, "create_project", { name: "Three" });
    expect(await outcomeOf(call(agent, "unarchive_project", { project_id: p2.id }))).toMatchObject({ status: 403, code: "SVC_PLAN_LIMIT_EXCEEDED" });
    expect((await body(agent, "get_project", { project_id: p1.id })).state).toBe("active");
  });

  it("updates a project under expected_version; counts decisions in GET", async () => {
    const p = await body(agent, "create_project", { name: "One" });
    const u = await body(agent, "update_project", { project_id: p.id, expected_version: 1, description: "d", settings: { session_silence_after: "PT10M" } });
    expect(u).toMatchObject({ version: 2, description: "d", settings: { session_silence_after: "PT10M", backlog_stale_after: "P30D" } });
    expect(await outcomeOf(call(agent, "update_project", { project_id: p.id, expected_version: 1, name: "x" }))).toMatchObject({ status: 409, code: "SVC_RESOURCE_CONFLICT", reason: "version_conflict" });
    await call(agent, "record_decision", { title: "T", decision_md: "D." });
    expect((await body(agent, "get_project", { project_id: p.id })).counts).toMatchObject({ decisions: 1, untriaged: 0 });
  });

  it("needs manage_projects for project writes and write_session_state for decision writes; reads need no scope", async () => {
    const reader = await seedPrincipal(world.deps.stores, ws, { scopes: [] });
    const writer = await seedPrincipal(world.deps.stores, ws, { scopes: ["write_session_state"] });
    expect(await outcomeOf(call(writer, "create_project", { name: "x" }))).toMatchObject({ status: 403, code: "SVC_SCOPE_INSUFFICIENT" });
    const p = await body(agent, "create_project", { name: "One" });
    expect(await outcomeOf(call(reader, "record_decision", { title: "t", decision_md: "d" }))).toMatchObject({ status: 403, code: "SVC_SCOPE_INSUFFICIENT" });
    const d = await body(writer, "record_decision", { title: "t", decision_md: "d" });
    expect(await outcomeOf(call(reader, "get_project", { project_id: p.id }))).toMatchObject({ status: 200 });
    expect(await outcomeOf(call(reader, "get_decision", { decision_id: d.id }))).toMatchObject({ status: 200 });
    expect(await outcomeOf(call(reader, "archive_project", { project_id: p.id }))).toMatchObject({ status: 403, code: "SVC_SCOPE_INSUFFICIENT" });
  });

  it("resolves the project: project_id, else the credential's project, else the default, else 400 no_project", async () => {
    expect(await outcomeOf(call(agent, "record_decision", { title: "t", decision_md: "d" }))).toMatchObject({ status: 400, code: "SVC_MALFORMED_REQUEST", reason: "no_project" });
    expect(await outcomeOf(call(agent, "list_decisions", {}))).toMatchObject({ status: 400, reason: "no_project" });
    const def = await body(agent, "create_project", { name: "Default" });
    const other = await body(agent, "create_project", { name: "Other" });
    expect((await body(agent, "record_decision", { title: "t", decision_md: "d" })).project_id).toBe(def.id);
    expect((await body(agent, "record_decision", { project_id: other.id, title: "t", decision_md: "d" })).project_id).toBe(other.id);
    expect(await outcomeOf(call(agent, "record_decision", { project_id: "01JZZZZZZZZZZZZZZZZZZZZZZZ", title: "t", decision_md: "d" }))).toMatchObject({ status: 404, code: "SVC_RESOURCE_NOT_FOUND" });
  });

  it("restricts a project-restricted credential to its project: others are 404, it cannot create projects", async () => {
    const def = await body(agent, "create_project", { name: "Default" });
    const other = await body(agent, "create_project", { name: "Other" });
    const inDefault = await body(agent, "record_decision", { title: "in default", decision_md: "d" });
    const restricted = await seedPrincipal(world.deps.stores, ws);
    restricted.credential.projectId = other.id;
    const mine = await body(restricted, "record_decision", { title: "mine", decision_md: "d" });
    expect(mine.project_id).toBe(other.id);
    expect(await outcomeOf(call(restricted, "get_project", { project_id: def.id }))).toMatchObject({ status: 404, code: "SVC_RESOURCE_NOT_FOUND" });
    expect(await outcomeOf(call(restricted, "get_decision", { decision_id: inDefault.id }))).toMatchObject({ status: 404 });
    expect(await outcomeOf(call(restricted, "correct_decision", { decision_id: inDefault.id, decision_md: "x", rationale_md: "y" }))).toMatchObject({ status: 404 });
    expect(await outcomeOf(call(restricted, "list_decisions", { project_id: def.id }))).toMatchObject({ status: 404 });
    expect((await body(restricted, "list_decisions", {})).items.map((d: { id: string }) => d.id)).toEqual([mine.id]);
    expect((await body(restricted, "list_projects", {})).items.map((p: { id: string }) => p.id)).toEqual([other.id]);
    expect(await outcomeOf(call(restricted, "create_project", { name: "new" }))).toMatchObject({ status: 403, code: "SVC_SCOPE_INSUFFICIENT" });
  });

  it("corrects only the tip: the correction inherits unnamed fields, the old entry is superseded and unchanged; summaries and details show the chain", async () => {
    await body(agent, "create_project", { name: "Default" });
    const d = await body(agent, "record_decision", { title: "Queue store", decision_md: "Use **PostgreSQL** for the queue. It has SKIP LOCKED.", tags: ["db"], files: ["packages/postgres/**"], alternatives: [{ option: "Redis", cons: ["another server"] }] });
    expect(d).toMatchObject({ number: 1, kind: "decision", status: "active", chain_root_id: d.id, supersedes_id: null, source: { kind: "manual", ref: "builder" } });
    const c = await body(agent, "correct_decision", { decision_id: d.id, decision_md: "Use PostgreSQL 17.", rationale_md: "We need MERGE RETURNING." });
    expect(c).toMatchObject({ number: 2, kind: "correction", title: "Queue store", tags: ["db"], files: ["packages/postgres/**"], supersedes_id: d.id, chain_root_id: d.id, status: "active" });
    expect(c.alternatives).toEqual([{ option: "Redis", pros: [], cons: ["another server"], chosen: false }]);
    const old = await body(agent, "get_decision", { decision_id: d.id });
    expect(old).toMatchObject({ status: "superseded", superseded_by_id: c.id, decision_md: d.decision_md, chain: { position: 1, length: 2, tip_id: c.id, entry_ids: [d.id, c.id] } });
    expect(await outcomeOf(call(agent, "correct_decision", { decision_id: d.id, decision_md: "x", rationale_md: "y" }))).toMatchObject({ status: 409, code: "SVC_RESOURCE_CONFLICT", reason: "not_tip" });
    const refusal = await call(agent, "correct_decision", { decision_id: d.id, decision_md: "x", rationale_md: "y" }).catch((e: { details: unknown }) => e.details);
    expect(refusal).toMatchObject({ current_id: c.id });
    expect(await outcomeOf(call(agent, "correct_decision", { decision_id: c.id, decision_md: "x", rationale_md: " " }))).toMatchObject({ status: 400, code: "SVC_MALFORMED_REQUEST" });
    expect(await body(agent, "get_decision_summary", { decision_id: d.id })).toEqual({ id: d.id, number: 1, title: "Queue store", status: "superseded", tip_id: c.id, one_line: "Use PostgreSQL for the queue.", tags: ["db"], files: ["packages/postgres/**"], corrections: 1, decided_at: d.decided_at });
    const amended = await body(agent, "amend_decision_source", { decision_id: d.id, source: { kind: "pr", ref: "#42", url: "https://example.com/pr/42" }, reason: "merged" });
    expect(amended).toMatchObject({ source: { kind: "pr", ref: "#42" }, reason: "merged", by: { friendly_name: "builder" } });
    const detail = await body(agent, "get_decision", { decision_id: d.id });
    expect(detail.source_amendments).toEqual([amended]);
    expect(detail.source).toEqual(d.source);
    const activity = world.tables.messaging.audit.values().map((r) => r.activity).filter((a) => a.startsWith("decision.") || a.startsWith("project."));
    expect(activity).toEqual(["project.created", "decision.recorded", "decision.corrected", "decision.source_amended"]);
  });

  it("lists, searches, reports authors and counts by period (zero-filled, at most 366 buckets)", async () => {
    const p = await body(agent, "create_project", { name: "Default" });
    const second = await seedPrincipal(world.deps.stores, ws, { friendlyName: "reviewer" });
    await body(agent, "record_decision", { title: "Advisory locks for sealing", decision_md: "Sealers take an advisory lock.", decided_at: "2026-01-05T10:00:00.000Z", tags: ["audit"] });
    await body(second, "record_decision", { title: "Pool size four", decision_md: "Four connections.", decided_at: "2026-01-07T10:00:00.000Z" });
    const search = await body(agent, "search_decisions", { q: "advisory" });
    expect(search.items).toHaveLength(1);
    expect(search.items[0]).toMatchObject({ decision: { title: "Advisory locks for sealing" }, snippet: expect.stringContaining("**") });
    expect((await body(agent, "list_decisions", { tag: "audit" })).items).toHaveLength(1);
    expect((await body(agent, "list_decisions", { author: second.account.id })).items.map((d: { title: string }) => d.title)).toEqual(["Pool size four"]);
    expect(await outcomeOf(call(agent, "list_decisions", { status: "gone" }))).toMatchObject({ status: 400, code: "SVC_MALFORMED_REQUEST" });
    const authors = await body(agent, "list_decision_authors", { project_id: p.id });
    expect(authors.items.map((a: { friendly_name: string; entries: number }) => [a.friendly_name, a.entries]).sort()).toEqual([["builder", 1], ["reviewer", 1]]);
    const weekly = await body(agent, "count_decisions_by_period", { period: "week", since: "2026-01-01T00:00:00.000Z", until: "2026-01-20T00:00:00.000Z" });
    expect(weekly).toEqual({
      period: "week",
      buckets: [
        { start: "2025-12-29T00:00:00.000Z", count: 0 },
        { start: "2026-01-05T00:00:00.000Z", count: 2 },
        { start: "2026-01-12T00:00:00.000Z", count: 0 },
        { start: "2026-01-19T00:00:00.000Z", count: 0 },
      ],
      total: 2,
    });
    const daily = await body(agent, "count_decisions_by_period", { since: "2026-01-05T00:00:00.000Z", until: "2026-01-07T12:00:00.000Z" });
    expect(daily.buckets.map((b: { count: number }) => b.count)).toEqual([1, 0, 1]);
    expect(await outcomeOf(call(agent, "count_decisions_by_period", { since: "2024-01-01T00:00:00.000Z", until: "2026-01-01T00:00:00.000Z" }))).toMatchObject({ status: 400, code: "SVC_MALFORMED_REQUEST" });
    expect((await body(agent, "count_decisions_by_period", { period: "month", since: "2024-01-01T00:00:00.000Z", until: "2026-01-31T00:00:00.000Z" })).buckets).toHaveLength(25);
  });

  it("writes an audit row for every session-state mutation of the catalogue", async () => {
    expect([...Object.keys(AUDITED), ...Object.keys(LEARNING_AUDITED)].sort()).toEqual(SESSION_STATE_OPERATIONS.filter((op) => op.mutates).map((op) => op.name).sort());
    const seen = new Set<string>();
    const run = async (name: string, input: Record<string, unknown>) => {
      const count = () => world.tables.messaging.audit.values().filter((r) => r.activity === AUDITED[name] && r.workspaceId === ws.id).length;
      const before = count();
      const out = await body(agent, name, input);
      if (count() > before) seen.add(name);
      return out;
    };
    const p1 = await run("create_project", { name: "One" });
    const p2 = await run("create_project", { name: "Two" });
    await run("update_project", { project_id: p2.id, description: "d" });
    await run("set_default_project", { project_id: p2.id });
    await run("archive_project", { project_id: p1.id });
    await run("unarchive_project", { project_id: p1.id });
    const d = await run("record_decision", { title: "t", decision_md: "d" });
    await run("correct_decision", { decision_id: d.id, decision_md: "d2", rationale_md: "r" });
    await run("amend_decision_source", { decision_id: d.id, source: { kind: "commit", ref: "abc123" }, reason: "r" });
    const s1 = (await run("start_build_session", { title: "s" })).session;
    await run("ping_build_session", { session_id: s1.id });
    await run("put_build_session_current_state", { session_id: s1.id, focus: "f", next_steps: [], blockers: [], open_questions: [], files_in_flight: [], notes_md: "" });
    await run("put_build_session_prs", { session_id: s1.id, prs: [] });
    await run("prepend_build_session_lead", { session_id: s1.id, text: "t" });
    const s2 = await run("continue_build_session", { session_id: s1.id });
    await run("end_build_session", { session_id: s2.id });
    const item = await run("create_backlog_item", { title: "i" });
    await run("triage_backlog_item", { backlog_item_id: item.id, decision: "accept" });
    await run("reprioritize_backlog_item", { backlog_item_id: item.id, priority: 0 });
    await run("amend_backlog_item", { backlog_item_id: item.id, title: "j" });
    await run("assign_backlog_item", { backlog_item_id: item.id });
    await run("reassign_backlog_item", { backlog_item_id: item.id, assignee_ai_account_id: agent.account.id, reason: "r" });
    world.clock.advance(8 * 86_400_000);
    await run("acknowledge_backlog_staleness", { backlog_item_id: item.id, reason: "r" });
    await run("close_backlog_item", { backlog_item_id: item.id, outcome: "resolved", commit_sha: "abcdef1" });
    expect([...seen].sort()).toEqual(Object.keys(AUDITED).sort());
  });

  it("replays a write sent again with the same Idempotency-Key", async () => {
    await body(agent, "create_project", { name: "Default" });
    const first = await callOperation(world.deps, agent, "record_decision", { title: "t", decision_md: "d" }, { key: "k-1" });
    const again = await callOperation(world.deps, agent, "record_decision", { title: "t", decision_md: "d" }, { key: "k-1" });
    expect(again.body).toEqual(first.body);
    expect((await body(agent, "list_decisions", {})).items).toHaveLength(1);
  });
});
