import { beforeEach, describe, expect, it } from "vitest";
import type { Principal } from "../access/model.ts";
import type { CoreDeps } from "../deps.ts";
import { isDomainError } from "../errors.ts";
import { callOperation } from "./guard-rail-calls.ts";
import { seedPrincipal, seedTestWorkspace } from "./principal-fixtures.ts";

/** What the state-table suites run against: full CoreDeps (in memory, or over PostgreSQL). */
export type SessionStateDepsFactory = () => Promise<CoreDeps>;

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
    let agent: Principal;
    const call = (name: string, input: Record<string, unknown>) => callOperation(deps, agent, name, input);
    beforeEach(async () => {
      deps = await make();
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
  });
}
