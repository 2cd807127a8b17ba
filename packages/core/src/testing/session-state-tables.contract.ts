import { beforeEach, describe, expect, it } from "vitest";
import type { CredentialPrincipal } from "../access/model.ts";
import type { CoreDeps } from "../deps.ts";
import { isDomainError } from "../errors.ts";
import { callOperation } from "./guard-rail-calls.ts";
import { ManualClock } from "./manual-clock.ts";
import { seedPrincipal, seedTestWorkspace } from "./principal-fixtures.ts";

/** What the state-table suites run against: full CoreDeps on the given clock (in memory, or over PostgreSQL). */
export type SessionStateDepsFactory = (clock: ManualClock) => Promise<CoreDeps>;

/** The outcome of one call: the success status, or the refusal's status and SVC_ code. */
export async function outcomeOf(p: Promise<{ status: number; body: unknown }>): Promise<{ status: number; code: string; reason?: unknown; body?: any }> {
  try {
    const r = await p;
    return { status: r.status, code: "none", body: r.body };
  } catch (e) {
    if (!isDomainError(e)) throw e;
    return { status: e.status, code: e.code, ...(e.details?.reason === undefined ? {} : { reason: e.details.reason }) };
  }
}

type ProjectState = "default" | "active" | "archived";
type Expect = [status: number, code: string, reason?: string];

/**
 * SESSION-STATE §2: every project state x every project route (and a decision write into the
 * project): the status and SVC_ code (and details.reason of refusals).
 */
const PROJECT_TABLE: Record<ProjectState, Record<string, Expect>> = {
  default: {
    archive_project: [409, "SVC_RESOURCE_CONFLICT", "is_default"],
    unarchive_project: [409, "SVC_RESOURCE_CONFLICT", "not_archived"],
    set_default_project: [200, "none"],
    update_project: [200, "none"],
    get_project: [200, "none"],
    record_decision: [201, "none"],
  },
  active: {
    archive_project: [200, "none"],
    unarchive_project: [409, "SVC_RESOURCE_CONFLICT", "not_archived"],
    set_default_project: [200, "none"],
    update_project: [200, "none"],
    get_project: [200, "none"],
    record_decision: [201, "none"],
  },
  archived: {
    archive_project: [409, "SVC_RESOURCE_CONFLICT", "already_archived"],
    unarchive_project: [200, "none"],
    set_default_project: [409, "SVC_RESOURCE_CONFLICT", "project_archived"],
    update_project: [409, "SVC_RESOURCE_CONFLICT", "project_archived"],
    get_project: [200, "none"],
    record_decision: [409, "SVC_RESOURCE_CONFLICT", "project_archived"],
  },
};

type DecisionState = "tip" | "superseded" | "tip_in_archived_project";

/** SESSION-STATE §4: every decision-entry state x every entry route. */
const DECISION_TABLE: Record<DecisionState, Record<string, Expect>> = {
  tip: { correct_decision: [201, "none"], amend_decision_source: [201, "none"], get_decision: [200, "none"], get_decision_summary: [200, "none"] },
  superseded: { correct_decision: [409, "SVC_RESOURCE_CONFLICT", "not_tip"], amend_decision_source: [201, "none"], get_decision: [200, "none"], get_decision_summary: [200, "none"] },
  tip_in_archived_project: { correct_decision: [409, "SVC_RESOURCE_CONFLICT", "project_archived"], amend_decision_source: [409, "SVC_RESOURCE_CONFLICT", "project_archived"], get_decision: [200, "none"], get_decision_summary: [200, "none"] },
};

function inputFor(route: string, id: string): Record<string, unknown> {
  switch (route) {
    case "update_project":
      return { project_id: id, description: "changed" };
    case "record_decision":
      return { project_id: id, title: "A decision", decision_md: "Do it." };
    case "correct_decision":
      return { decision_id: id, decision_md: "Do it differently.", rationale_md: "It broke." };
    case "amend_decision_source":
      return { decision_id: id, source: { kind: "pr", ref: "#7" }, reason: "the PR came later" };
    case "get_decision":
    case "get_decision_summary":
      return { decision_id: id };
    default:
      return { project_id: id };
  }
}

/**
 * The data-driven state tables of projects and decision-log entries, through the operation
 * catalogue (authorize, validate, handler, stores) on `make`'s deps.
 */
export function describeSessionStateTables(label: string, make: SessionStateDepsFactory): void {
  describe(`session-state tables (${label})`, () => {
    let deps: CoreDeps;
    let agent: CredentialPrincipal;
    let clock: ManualClock;
    const call = (name: string, input: Record<string, unknown>) => callOperation(deps, agent, name, input);
    const body = async (name: string, input: Record<string, unknown>) => (await call(name, input)).body as any;
    beforeEach(async () => {
      clock = new ManualClock(new Date("2026-06-01T09:00:00.000Z"));
      deps = await make(clock);
      const ws = await seedTestWorkspace(deps.stores);
      agent = await seedPrincipal(deps.stores, ws);
    });

    async function projectIn(state: ProjectState): Promise<string> {
      const def = await call("create_project", { name: "Default project" });
      if (state === "default") return (def.body as { id: string }).id;
      const p = await call("create_project", { name: "Another project" });
      const id = (p.body as { id: string }).id;
      if (state === "archived") await call("archive_project", { project_id: id });
      return id;
    }

    const projectCases = Object.entries(PROJECT_TABLE).flatMap(([state, routes]) => Object.entries(routes).map(([route, expected]) => [state as ProjectState, route, expected] as const));
    it.each(projectCases)("project %s x %s", async (state, route, [status, code, reason]) => {
      const id = await projectIn(state);
      const out = await outcomeOf(call(route, inputFor(route, id)));
      expect({ status: out.status, code: out.code, reason: out.reason }).toEqual({ status, code, reason });
    });

    async function decisionIn(state: DecisionState): Promise<string> {
      const p = await call("create_project", { name: "Default project" });
      const projectId = (p.body as { id: string }).id;
      const other = state === "tip_in_archived_project" ? ((await call("create_project", { name: "Other" })).body as { id: string }).id : projectId;
      const d = await call("record_decision", { project_id: other, title: "Pick a queue", decision_md: "PostgreSQL. Nothing else." });
      const id = (d.body as { id: string }).id;
      if (state === "superseded") await call("correct_decision", { decision_id: id, decision_md: "Still PostgreSQL.", rationale_md: "Checked again." });
      if (state === "tip_in_archived_project") await call("archive_project", { project_id: other });
      return id;
    }

    const decisionCases = Object.entries(DECISION_TABLE).flatMap(([state, routes]) => Object.entries(routes).map(([route, expected]) => [state as DecisionState, route, expected] as const));
    it.each(decisionCases)("decision %s x %s", async (state, route, [status, code, reason]) => {
      const id = await decisionIn(state);
      const out = await outcomeOf(call(route, inputFor(route, id)));
      expect({ status: out.status, code: out.code, reason: out.reason }).toEqual({ status, code, reason });
    });

    async function itemIn(state: BacklogState): Promise<string> {
      await call("create_project", { name: "Default project" });
      const item = await body("create_backlog_item", { title: "Flaky test", skip_triage: state !== "untriaged" });
      if (state === "in_progress") await call("assign_backlog_item", { backlog_item_id: item.id });
      if (state === "resolved") await call("close_backlog_item", { backlog_item_id: item.id, outcome: "resolved", commit_sha: "abc1234" });
      if (state === "dismissed") await call("close_backlog_item", { backlog_item_id: item.id, outcome: "dismissed", reason: "not a bug" });
      if (state === "stale_open") clock.advance(31 * DAY);
      return item.id;
    }

    const backlogCases = Object.entries(BACKLOG_TABLE).flatMap(([state, routes]) => Object.entries(routes).map(([route, expected]) => [state as BacklogState, route, expected] as const));
    it.each(backlogCases)("backlog %s x %s", async (state, route, [status, code, reason]) => {
      const id = await itemIn(state);
      const out = await outcomeOf(call(route.split(":")[0] as string, backlogInput(route, id, agent.account.id)));
      expect({ status: out.status, code: out.code, reason: out.reason }).toEqual({ status, code, reason });
      if (state === "resolved" || state === "dismissed") expect((await body("get_backlog_item", { backlog_item_id: id })).status).toBe(state);
    });

    async function sessionIn(state: SessionState): Promise<string> {
      await call("create_project", { name: "Default project" });
      const started = await body("start_build_session", { title: "Work" });
      const id = started.session.id as string;
      if (state === "ended") await call("end_build_session", { session_id: id, summary_md: "done" });
      if (state === "continued") await call("continue_build_session", { session_id: id });
      return id;
    }

    const sessionCases = Object.entries(SESSION_TABLE).flatMap(([state, routes]) => Object.entries(routes).map(([route, expected]) => [state as SessionState, route, expected] as const));
    it.each(sessionCases)("build session %s x %s", async (state, route, [status, code, reason]) => {
      const id = await sessionIn(state);
      const out = await outcomeOf(call(route, sessionInput(route, id)));
      expect({ status: out.status, code: out.code, reason: out.reason }).toEqual({ status, code, reason });
    });

    it("staleness with a pinned clock: open items after P30D, in_progress after P7D; acknowledging snoozes without counting as activity", async () => {
      const project = await body("create_project", { name: "Default project" });
      const open = await body("create_backlog_item", { title: "Open one", skip_triage: true });
      const taken = await body("create_backlog_item", { title: "Taken one", skip_triage: true });
      await call("assign_backlog_item", { backlog_item_id: taken.id });
      const stale = async () => (await body("list_stale_backlog", {})).items.map((i: { id: string }) => i.id);
      clock.advance(7 * DAY);
      expect(await stale()).toEqual([]);
      clock.advance(1000);
      expect(await stale()).toEqual([taken.id]);
      expect(await outcomeOf(call("acknowledge_backlog_staleness", { backlog_item_id: open.id, reason: "waiting" }))).toMatchObject({ status: 409, code: "SVC_RESOURCE_CONFLICT", reason: "not_stale" });
      clock.advance(23 * DAY);
      expect(await stale()).toEqual([open.id, taken.id]);
      expect(await body("count_backlog_by_status", {})).toEqual({ untriaged: 0, open: 1, in_progress: 1, resolved: 0, dismissed: 0, stale: 2 });
      const acked = await body("acknowledge_backlog_staleness", { backlog_item_id: open.id, reason: "blocked upstream", snooze: "P10D" });
      expect(acked).toMatchObject({ stale: false, staleness_ack: { reason: "blocked upstream", count: 1 }, last_activity_at: open.last_activity_at, days_inactive: 30 });
      expect(await stale()).toEqual([taken.id]);
      expect((await body("list_stale_backlog", { include_snoozed: "true" })).items.map((i: { id: string }) => i.id)).toEqual([open.id, taken.id]);
      expect((await body("get_project", { project_id: project.id })).counts).toMatchObject({ open: 1, in_progress: 1, stale: 1 });
      clock.advance(10 * DAY + 1000);
      expect(await stale()).toEqual([open.id, taken.id]);
      await call("reprioritize_backlog_item", { backlog_item_id: open.id, priority: 1 });
      expect(await stale()).toEqual([taken.id]);
      expect(await outcomeOf(call("acknowledge_backlog_staleness", { backlog_item_id: taken.id, reason: "r", snooze: "P91D" }))).toMatchObject({ status: 400, code: "SVC_MALFORMED_REQUEST" });
    });

    it("liveness and active time with a pinned clock; the briefing shows where the last session stopped and the ready backlog", async () => {
      await call("create_project", { name: "Default project" });
      const first = (await body("start_build_session", { title: "Day one", goal: "ship" })).session;
      expect(first).toMatchObject({ state: "active", liveness: "live", ping_count: 0, active_seconds: 0 });
      clock.advance(10 * MINUTE);
      expect((await body("ping_build_session", { session_id: first.id, focus: "tests" })).active_seconds).toBe(600);
      clock.advance(2 * HOUR);
      expect((await body("get_build_session", { session_id: first.id })).liveness).toBe("silent");
      expect((await body("search_build_sessions", { liveness: "silent" })).items.map((x: { id: string }) => x.id)).toEqual([first.id]);
      const pinged = await body("ping_build_session", { session_id: first.id });
      expect(pinged).toMatchObject({ active_seconds: 600 + 1800, ping_count: 2, liveness: "live", current_state: { focus: "tests" } });
      await call("put_build_session_current_state", { session_id: first.id, expected_version: 2, focus: "ci", next_steps: ["fix ci"], blockers: [], open_questions: ["why flaky?"], files_in_flight: ["a.ts"], notes_md: "" });
      await call("prepend_build_session_lead", { session_id: first.id, text: "CI is red: start there" });
      await call("put_build_session_prs", { session_id: first.id, prs: [{ url: "https://example.com/pr/1", state: "open" }, { url: "https://example.com/pr/2", state: "merged" }] });
      await body("create_backlog_item", { title: "Low", priority: 3, skip_triage: true });
      await body("create_backlog_item", { title: "High", priority: 0, skip_triage: true });
      await body("create_backlog_item", { title: "Untriaged" });
      const d = await body("record_decision", { title: "Pin node", decision_md: "Node 22." });
      expect(d.build_session_id).toBe(first.id);
      await call("end_build_session", { session_id: first.id, summary_md: "CI half fixed", learnings: ["flaky tests hide in timers"] });
      const second = await body("start_build_session", { title: "Day two" });
      expect(second.briefing).toMatchObject({
        previous_session: { id: first.id, summary_md: "CI half fixed", lead_lines: [{ text: "CI is red: start there" }], current_state: { focus: "ci", next_steps: ["fix ci"] }, learnings: ["flaky tests hide in timers"] },
        stale_backlog_count: 0,
        pending_lesson_candidates: 0,
      });
      expect(second.briefing.ready_backlog.map((i: { title: string }) => i.title)).toEqual(["High", "Low"]);
      expect((await call("start_build_session", { title: "quiet", briefing: "false" })).body).toMatchObject({ briefing: null });
      const cont = await body("continue_build_session", { session_id: second.session.id, title: "Day two, later" });
      expect(cont).toMatchObject({ previous_session_id: second.session.id, chain_root_id: second.session.id, state: "active" });
      const agg = await body("get_build_session_aggregate", { session_id: first.id });
      expect(agg).toMatchObject({ session_ids: [first.id], pings: 2, active_seconds: 2400, decisions: { recorded: 1, corrected: 0 }, backlog: { created: 3, touched: 3 }, prs_by_state: { open: 1, merged: 1 } });
      const chain = await body("get_build_session_aggregate", { session_id: cont.id, chain: "true" });
      expect(chain.session_ids).toEqual([second.session.id, cont.id]);
      expect((await body("search_build_sessions", { q: "flaky", state: "ended" })).items.map((x: { id: string }) => x.id)).toEqual([first.id]);
      expect((await body("search_build_sessions", { has_open_pr: "true" })).items.map((x: { id: string }) => x.id)).toEqual([first.id]);
    });

    it("moves a backlog item untriaged -> open -> in_progress -> resolved; search, ready, events and counts follow", async () => {
      await call("create_project", { name: "Default project" });
      const item = await body("create_backlog_item", { title: "Parser drops tabs", kind: "bug", labels: ["parser"], description_md: "Tabs vanish in imports." });
      expect(item).toMatchObject({ number: 1, status: "untriaged", priority: 2, kind: "bug" });
      await call("triage_backlog_item", { backlog_item_id: item.id, decision: "accept", priority: 1 });
      expect((await body("search_backlog", { ready: "true" })).items.map((i: { id: string }) => i.id)).toEqual([item.id]);
      expect((await body("search_backlog", { q: "tabs" })).items.map((i: { id: string }) => i.id)).toEqual([item.id]);
      expect((await body("search_backlog", { q: "kubernetes" })).items).toEqual([]);
      expect((await body("search_backlog", { status: "open,in_progress", label: "parser", priority_max: "1" })).items).toHaveLength(1);
      await call("assign_backlog_item", { backlog_item_id: item.id });
      expect(await outcomeOf(call("close_backlog_item", { backlog_item_id: item.id, outcome: "resolved" }))).toMatchObject({ status: 400, code: "SVC_MALFORMED_REQUEST" });
      const resolved = await body("close_backlog_item", { backlog_item_id: item.id, outcome: "resolved", pr_url: "https://example.com/pr/9", notes_md: "fixed in the lexer" });
      expect(resolved).toMatchObject({ status: "resolved", closing: { pr_url: "https://example.com/pr/9", notes_md: ["fixed in the lexer"] } });
      const noted = await body("close_backlog_item", { backlog_item_id: item.id, notes_md: "released in 1.2" });
      expect(noted.closing.notes_md).toEqual(["fixed in the lexer", "released in 1.2"]);
      const detail = await body("get_backlog_item", { backlog_item_id: item.id });
      expect(detail.events.map((e: { event_type: string }) => e.event_type)).toEqual(["note_added", "resolved", "assigned", "triaged", "created"]);
      expect(await body("count_backlog_by_status", {})).toMatchObject({ resolved: 1, open: 0 });
    });
  });
}

const DAY = 86_400_000;
const HOUR = 3_600_000;
const MINUTE = 60_000;

type BacklogState = "untriaged" | "open" | "in_progress" | "resolved" | "dismissed" | "stale_open";

/** SESSION-STATE §5: every backlog status x every backlog route (route:variant for the triage decisions and closing outcomes). */
const BACKLOG_TABLE: Record<BacklogState, Record<string, Expect>> = {
  untriaged: {
    "triage_backlog_item:accept": [200, "none"],
    "triage_backlog_item:dismiss": [200, "none"],
    "assign_backlog_item": [409, "SVC_RESOURCE_CONFLICT", "wrong_status"],
    "reassign_backlog_item": [409, "SVC_RESOURCE_CONFLICT", "wrong_status"],
    "reprioritize_backlog_item": [200, "none"],
    "amend_backlog_item": [200, "none"],
    "close_backlog_item:resolved": [200, "none"],
    "close_backlog_item:dismissed": [200, "none"],
    "close_backlog_item:note": [400, "SVC_MALFORMED_REQUEST"],
    "acknowledge_backlog_staleness": [409, "SVC_RESOURCE_CONFLICT", "not_stale"],
  },
  open: {
    "triage_backlog_item:accept": [409, "SVC_RESOURCE_CONFLICT", "wrong_status"],
    "triage_backlog_item:dismiss": [409, "SVC_RESOURCE_CONFLICT", "wrong_status"],
    "assign_backlog_item": [200, "none"],
    "reassign_backlog_item": [409, "SVC_RESOURCE_CONFLICT", "wrong_status"],
    "reprioritize_backlog_item": [200, "none"],
    "amend_backlog_item": [200, "none"],
    "close_backlog_item:resolved": [200, "none"],
    "close_backlog_item:dismissed": [200, "none"],
    "close_backlog_item:note": [400, "SVC_MALFORMED_REQUEST"],
    "acknowledge_backlog_staleness": [409, "SVC_RESOURCE_CONFLICT", "not_stale"],
  },
  in_progress: {
    "triage_backlog_item:accept": [409, "SVC_RESOURCE_CONFLICT", "wrong_status"],
    "triage_backlog_item:dismiss": [409, "SVC_RESOURCE_CONFLICT", "wrong_status"],
    "assign_backlog_item": [409, "SVC_RESOURCE_CONFLICT", "wrong_status"],
    "reassign_backlog_item": [200, "none"],
    "reprioritize_backlog_item": [200, "none"],
    "amend_backlog_item": [200, "none"],
    "close_backlog_item:resolved": [200, "none"],
    "close_backlog_item:dismissed": [200, "none"],
    "close_backlog_item:note": [400, "SVC_MALFORMED_REQUEST"],
    "acknowledge_backlog_staleness": [409, "SVC_RESOURCE_CONFLICT", "not_stale"],
  },
  resolved: {
    "triage_backlog_item:accept": [409, "SVC_RESOURCE_CONFLICT", "terminal"],
    "triage_backlog_item:dismiss": [409, "SVC_RESOURCE_CONFLICT", "terminal"],
    "assign_backlog_item": [409, "SVC_RESOURCE_CONFLICT", "terminal"],
    "reassign_backlog_item": [409, "SVC_RESOURCE_CONFLICT", "terminal"],
    "reprioritize_backlog_item": [409, "SVC_RESOURCE_CONFLICT", "terminal"],
    "amend_backlog_item": [409, "SVC_RESOURCE_CONFLICT", "terminal"],
    "close_backlog_item:resolved": [200, "none"],
    "close_backlog_item:dismissed": [409, "SVC_RESOURCE_CONFLICT", "terminal"],
    "close_backlog_item:note": [200, "none"],
    "acknowledge_backlog_staleness": [409, "SVC_RESOURCE_CONFLICT", "terminal"],
  },
  dismissed: {
    "triage_backlog_item:accept": [409, "SVC_RESOURCE_CONFLICT", "terminal"],
    "triage_backlog_item:dismiss": [409, "SVC_RESOURCE_CONFLICT", "terminal"],
    "assign_backlog_item": [409, "SVC_RESOURCE_CONFLICT", "terminal"],
    "reassign_backlog_item": [409, "SVC_RESOURCE_CONFLICT", "terminal"],
    "reprioritize_backlog_item": [409, "SVC_RESOURCE_CONFLICT", "terminal"],
    "amend_backlog_item": [409, "SVC_RESOURCE_CONFLICT", "terminal"],
    "close_backlog_item:resolved": [409, "SVC_RESOURCE_CONFLICT", "terminal"],
    "close_backlog_item:dismissed": [200, "none"],
    "close_backlog_item:note": [200, "none"],
    "acknowledge_backlog_staleness": [409, "SVC_RESOURCE_CONFLICT", "terminal"],
  },
  stale_open: {
    "acknowledge_backlog_staleness": [200, "none"],
    "assign_backlog_item": [200, "none"],
  },
};

function backlogInput(route: string, id: string, accountId: string): Record<string, unknown> {
  const base = { backlog_item_id: id };
  switch (route) {
    case "triage_backlog_item:accept":
      return { ...base, decision: "accept" };
    case "triage_backlog_item:dismiss":
      return { ...base, decision: "dismiss", reason: "no" };
    case "assign_backlog_item":
      return base;
    case "reassign_backlog_item":
      return { ...base, assignee_ai_account_id: accountId, reason: "handing over" };
    case "reprioritize_backlog_item":
      return { ...base, priority: 0 };
    case "amend_backlog_item":
      return { ...base, title: "Renamed" };
    case "close_backlog_item:resolved":
      return { ...base, outcome: "resolved", notes_md: "done" };
    case "close_backlog_item:dismissed":
      return { ...base, outcome: "dismissed", reason: "obsolete", notes_md: "n" };
    case "close_backlog_item:note":
      return { ...base, notes_md: "a note" };
    default:
      return { ...base, reason: "known" };
  }
}

type SessionState = "active" | "ended" | "continued";

/** SESSION-STATE §3: every build-session state x every session route. */
const SESSION_TABLE: Record<SessionState, Record<string, Expect>> = {
  active: {
    ping_build_session: [200, "none"],
    put_build_session_current_state: [200, "none"],
    put_build_session_prs: [200, "none"],
    prepend_build_session_lead: [200, "none"],
    end_build_session: [200, "none"],
    continue_build_session: [201, "none"],
    get_build_session: [200, "none"],
    get_build_session_aggregate: [200, "none"],
  },
  ended: {
    ping_build_session: [409, "SVC_RESOURCE_CONFLICT", "session_ended"],
    put_build_session_current_state: [409, "SVC_RESOURCE_CONFLICT", "session_ended"],
    put_build_session_prs: [200, "none"],
    prepend_build_session_lead: [200, "none"],
    end_build_session: [409, "SVC_RESOURCE_CONFLICT", "session_ended"],
    continue_build_session: [201, "none"],
    get_build_session: [200, "none"],
    get_build_session_aggregate: [200, "none"],
  },
  continued: {
    ping_build_session: [409, "SVC_RESOURCE_CONFLICT", "session_ended"],
    put_build_session_current_state: [409, "SVC_RESOURCE_CONFLICT", "session_ended"],
    put_build_session_prs: [200, "none"],
    prepend_build_session_lead: [200, "none"],
    end_build_session: [409, "SVC_RESOURCE_CONFLICT", "session_ended"],
    continue_build_session: [409, "SVC_RESOURCE_CONFLICT", "already_continued"],
    get_build_session: [200, "none"],
    get_build_session_aggregate: [200, "none"],
  },
};

function sessionInput(route: string, id: string): Record<string, unknown> {
  const base = { session_id: id };
  switch (route) {
    case "put_build_session_current_state":
      return { ...base, focus: "f", next_steps: [], blockers: [], open_questions: [], files_in_flight: [], notes_md: "" };
    case "put_build_session_prs":
      return { ...base, prs: [{ url: "https://example.com/pr/3" }] };
    case "prepend_build_session_lead":
      return { ...base, text: "next: read the logs" };
    default:
      return base;
  }
}
