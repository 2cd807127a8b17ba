import { RECORDS_AUDITED } from "@agentq/core/testing";
import { errorCodeOf, structured } from "@agentq/mcp/testing";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSessionStateServer, type SessionStateServer } from "./testing/session-state-server.ts";

// Issue 14's Done-when, on the composed server over PostgreSQL with real HTTP: over REST, over MCP
// (the SDK client) and with the CLI (a real `agentq` process), an agent creates a project,
// starts a session and reads its briefing, records and corrects a decision, moves a backlog
// item from untriaged to resolved, ends the session and starts a continuation. Every
// session-state write is also called as an MCP tool. Direct SQL then shows the decision log is
// append-only and resolved items stay resolved.

type Json = Record<string, any>;

describe("session-state records over REST, MCP and the CLI (PostgreSQL, real HTTP)", () => {
  let s: SessionStateServer;
  beforeAll(async () => {
    s = await startSessionStateServer("session-state-done");
  });
  afterAll(async () => {
    await s?.close();
  });
  const ok = (token: string, method: string, path: string, body?: unknown) => s.ok(token, method, path, body);
  const rest = (token: string, method: string, path: string, body?: unknown) => s.rest(token, method, path, body);
  const agent = (name: string) => s.agent(name);

  it("REST: project, session with briefing, decision and correction, backlog untriaged -> resolved, end, continuation", async () => {
    const a = await agent("rest-agent");
    const project = await ok(a.token, "POST", "/v1/projects", { name: "REST project", make_default: true });
    expect(project).toMatchObject({ state: "active", is_default: true });
    const started = await ok(a.token, "POST", "/v1/build-sessions", { project_id: project.id, title: "Day one", goal: "ship the parser" });
    expect(started.briefing).toMatchObject({ project: { id: project.id }, previous_session: null, ready_backlog: [] });
    const sessionId = started.session.id as string;
    const decision = await ok(a.token, "POST", "/v1/decision-log", { project_id: project.id, title: "Parser library", decision_md: "Use markdown-it." });
    expect(decision.build_session_id).toBe(sessionId);
    const correction = await ok(a.token, "POST", `/v1/decision-log/${decision.id as string}/correct`, { decision_md: "Use markdown-it with line maps.", rationale_md: "We need line ranges." });
    expect((await ok(a.token, "GET", `/v1/decision-log/${decision.id as string}/summary`)).tip_id).toBe(correction.id);
    expect((await rest(a.token, "POST", `/v1/decision-log/${decision.id as string}/correct`, { decision_md: "x", rationale_md: "y" })).body.error.details).toMatchObject({ reason: "not_tip", current_id: correction.id });
    const item = await ok(a.token, "POST", "/v1/backlog", { project_id: project.id, title: "Tabs vanish", kind: "bug" });
    expect(item.status).toBe("untriaged");
    await ok(a.token, "POST", `/v1/backlog/${item.id as string}/triage`, { decision: "accept", priority: 1 });
    await ok(a.token, "POST", `/v1/backlog/${item.id as string}/assign`, {});
    const resolved = await ok(a.token, "POST", `/v1/backlog/${item.id as string}/closing-notes`, { outcome: "resolved", commit_sha: "abcdef1", notes_md: "lexer fixed" });
    expect(resolved.status).toBe("resolved");
    expect((await rest(a.token, "POST", `/v1/backlog/${item.id as string}/closing-notes`, { outcome: "dismissed", reason: "x" })).status).toBe(409);
    await ok(a.token, "POST", `/v1/build-sessions/${sessionId}/prepend-lead`, { text: "Start with the importer" });
    const ended = await ok(a.token, "POST", `/v1/build-sessions/${sessionId}/end`, { summary_md: "Parser done", learnings: ["line maps matter"] });
    expect(ended).toMatchObject({ state: "ended", end_reason: "completed" });
    const next = await ok(a.token, "POST", `/v1/build-sessions/${sessionId}/continuation`, { title: "Day two" });
    expect(next).toMatchObject({ state: "active", previous_session_id: sessionId, chain_root_id: sessionId });
    const aggregate = await ok(a.token, "GET", `/v1/build-sessions/${sessionId}/aggregate`);
    expect(aggregate).toMatchObject({ decisions: { recorded: 1, corrected: 1 }, backlog: { created: 1, triaged: 1, resolved: 1, touched: 1 } });
    const briefing = (await ok(a.token, "POST", "/v1/build-sessions", { project_id: project.id, title: "Day three" })).briefing;
    expect(briefing.previous_session).toMatchObject({ id: next.id });
  });

  it("MCP: the same day through the SDK client, and every session-state write as a tool", async () => {
    const a = await agent("mcp-agent");
    const { client: mcp, tool, called } = await s.mcp(a.token);
    try {
      const project = await tool("create_project", { name: "MCP project" });
      await tool("update_project", { project_id: project.id, description: "through MCP" });
      const spare = await tool("create_project", { name: "MCP spare" });
      await tool("archive_project", { project_id: spare.id });
      await tool("unarchive_project", { project_id: spare.id });
      await tool("set_default_project", { project_id: project.id });
      const started = await tool("start_build_session", { project_id: project.id, title: "MCP day" });
      expect(started.briefing).toMatchObject({ project: { id: project.id } });
      const sessionId = started.session.id as string;
      await tool("ping_build_session", { session_id: sessionId, focus: "decisions" });
      await tool("put_build_session_current_state", { session_id: sessionId, focus: "backlog", next_steps: ["close the bug"], blockers: [], open_questions: [], files_in_flight: [], notes_md: "" });
      await tool("put_build_session_prs", { session_id: sessionId, prs: [{ url: "https://example.com/pr/5", state: "open" }] });
      await tool("prepend_build_session_lead", { session_id: sessionId, text: "PR 5 waits for review" });
      const d = await tool("record_decision", { project_id: project.id, title: "Transport", decision_md: "Streamable HTTP." });
      await tool("amend_decision_source", { decision_id: d.id, source: { kind: "pr", ref: "#5", url: "https://example.com/pr/5" }, reason: "the PR came later" });
      const c = await tool("correct_decision", { decision_id: d.id, decision_md: "Streamable HTTP and stdio.", rationale_md: "Some clients only spawn processes." });
      const refused = await mcp.callTool({ name: "correct_decision", arguments: { decision_id: d.id, decision_md: "x", rationale_md: "y" } });
      expect(errorCodeOf(refused)).toBe("SVC_RESOURCE_CONFLICT");
      expect(c.supersedes_id).toBe(d.id);
      const item = await tool("create_backlog_item", { project_id: project.id, title: "Flaky tool test" });
      await tool("triage_backlog_item", { backlog_item_id: item.id, decision: "accept" });
      await tool("reprioritize_backlog_item", { backlog_item_id: item.id, priority: 0, reason: "blocks release" });
      await tool("amend_backlog_item", { backlog_item_id: item.id, labels: ["mcp"] });
      await tool("assign_backlog_item", { backlog_item_id: item.id });
      await tool("reassign_backlog_item", { backlog_item_id: item.id, assignee_ai_account_id: a.id, reason: "still mine" });
      s.clock.advance(8 * 86_400_000);
      await tool("acknowledge_backlog_staleness", { backlog_item_id: item.id, reason: "waiting on CI", snooze: "P2D" });
      const resolved = await tool("close_backlog_item", { backlog_item_id: item.id, outcome: "resolved", pr_url: "https://example.com/pr/5" });
      expect(resolved).toMatchObject({ status: "resolved" });
      const ended = await tool("end_build_session", { session_id: sessionId, summary_md: "done over MCP" });
      expect(ended.state).toBe("ended");
      const next = await tool("continue_build_session", { session_id: sessionId });
      expect(next).toMatchObject({ previous_session_id: sessionId, prs: [{ url: "https://example.com/pr/5" }] });
      // Part 1's writes here; lessons, candidates and rules in learning-loop.pg.test.ts.
      expect([...called].filter((n) => n in RECORDS_AUDITED).sort()).toEqual(Object.keys(RECORDS_AUDITED).sort());
      const read = await mcp.callTool({ name: "count_backlog_by_status", arguments: { project_id: project.id } });
      expect(structured(read)).toMatchObject({ resolved: 1 });
    } finally {
      await mcp.close();
    }
  });

  // Each command is a new process (tsx compiles on start): slow under the full suite's load.
  it("CLI: the same day with a real agentq process", { timeout: 180_000 }, async () => {
    const a = await agent("cli-agent");
    const cli = (...args: string[]): Promise<Json> => s.cli(a.token, ...args);
    const project = await cli("project", "create", "--name", "CLI project", "--default");
    const started = await cli("session", "start", "--title", "CLI day", "--project", project.id as string);
    expect(started.briefing).toMatchObject({ project: { id: project.id } });
    const sessionId = started.session.id as string;
    await cli("session", "ping", "--session", sessionId, "--focus", "hooks");
    const d = await cli("decide", "--title", "Hooks", "--decision", "Ping on every tool call.", "--why", "Liveness.", "--tag", "hooks", "--session", sessionId);
    expect(d).toMatchObject({ kind: "decision", build_session_id: sessionId, tags: ["hooks"] });
    const c = await cli("decide", "--correct", d.id as string, "--decision", "Ping every minute at most.", "--why", "Rate limits.");
    expect(c).toMatchObject({ kind: "correction", supersedes_id: d.id, title: "Hooks" });
    const item = await cli("backlog", "add", "--title", "Hook misses exit", "--kind", "bug");
    expect(item.status).toBe("untriaged");
    expect((await cli("backlog", "list", "--status", "untriaged")).items.map((i: Json) => i.id)).toEqual([item.id]);
    const closed = await cli("backlog", "close", item.id as string, "--resolved", "--commit", "abc1234");
    expect(closed.status).toBe("resolved");
    await cli("session", "lead", "Check the exit hook first", "--session", sessionId);
    const ended = await cli("session", "end", "--session", sessionId, "--summary", "hooks wired", "--learning", "exit hooks may not run");
    expect(ended).toMatchObject({ state: "ended", learnings: ["exit hooks may not run"] });
    const next = await cli("session", "continue", "--session", sessionId);
    expect(next).toMatchObject({ state: "active", previous_session_id: sessionId });
    const human = await s.cliText(a.token, "backlog", "list", "--status", "resolved");
    expect(human).toContain(`${item.id as string} resolved`);
  });

  it("direct SQL cannot change the decision log or reopen a resolved item", async () => {
    const state = async (p: Promise<unknown>) => p.then(() => "ok", (e: unknown) => (e instanceof postgres.PostgresError ? e.code : String(e)));
    expect(await state(s.db.sql`update decision_log_entries set decision_md = 'rewritten'`)).toBe("55000");
    expect(await state(s.db.sql`delete from decision_log_entries`)).toBe("55000");
    expect(await state(s.db.sql`update backlog_items set status = 'open', resolved_at = null where status = 'resolved'`)).toBe("55000");
    const [counts] = await s.db.sql<{ decisions: number; resolved: number }[]>`
      select (select count(*)::int from decision_log_entries) as decisions, (select count(*)::int from backlog_items where status = 'resolved') as resolved`;
    expect(counts).toEqual({ decisions: 6, resolved: 3 });
  });
});
