import { describe, expect, it } from "vitest";
import { createInMemoryDeps } from "../testing/create-in-memory-deps.ts";
import { fixtureId } from "../testing/access-fixtures.ts";
import { seedTestWorkspace } from "../testing/principal-fixtures.ts";
import { parsePlanOverrides, setWorkspacePlan } from "./set-workspace-plan.ts";
import { workspaceLimits } from "./workspace-limits.ts";

describe("setWorkspacePlan (operator)", () => {
  it("sets the plan and overrides, audits it operator-significant, and this process sees it at once", async () => {
    const world = createInMemoryDeps();
    const ws = await seedTestWorkspace(world.deps.stores);
    expect(await workspaceLimits(world.deps, ws.id)).toMatchObject({ plan: "standard", aiAccounts: 100 });
    const set = await setWorkspacePlan(world.deps, { workspaceId: ws.id, plan: "free", overrides: parsePlanOverrides(["ai_accounts=25", "messages_per_month=unlimited", "credential_requests_per_minute=60"]) });
    expect(set.limits).toEqual({ aiAccounts: 25, projects: 3, messagesPerMonth: null, credentialRequestsPerMinute: 60, workspaceRequestsPerMinute: 600 });
    expect(await workspaceLimits(world.deps, ws.id)).toMatchObject({ plan: "free", aiAccounts: 25, messagesPerMonth: null });
    const rows = await world.deps.stores.audit.list({ workspaceId: ws.id, activity: "workspace.plan_changed", messageId: null, includeOperatorSignificant: true, after: null, limit: 10 });
    expect(rows.map((r) => [r.operatorSignificant, r.details["from"], r.details["to"]])).toEqual([[true, null, { plan: "free", overrides: { aiAccounts: 25, messagesPerMonth: null, credentialRequestsPerMinute: 60 } }]]);
  });

  it("refuses an unknown workspace, plan or override", async () => {
    const world = createInMemoryDeps();
    const ws = await seedTestWorkspace(world.deps.stores);
    await expect(setWorkspacePlan(world.deps, { workspaceId: fixtureId(), plan: "free", overrides: {} })).rejects.toMatchObject({ code: "SVC_RESOURCE_NOT_FOUND" });
    await expect(setWorkspacePlan(world.deps, { workspaceId: ws.id, plan: "gold", overrides: {} })).rejects.toMatchObject({ code: "SVC_MALFORMED_REQUEST" });
    expect(() => parsePlanOverrides(["seats=3"])).toThrow(expect.objectContaining({ code: "SVC_MALFORMED_REQUEST" }));
    expect(() => parsePlanOverrides(["workspace_requests_per_minute=unlimited"])).toThrow(expect.objectContaining({ code: "SVC_MALFORMED_REQUEST" }));
    expect(() => parsePlanOverrides(["credential_requests_per_minute=0"])).toThrow(expect.objectContaining({ code: "SVC_MALFORMED_REQUEST" }));
    expect(() => parsePlanOverrides(["projects=-1"])).toThrow(expect.objectContaining({ code: "SVC_MALFORMED_REQUEST" }));
  });
});
