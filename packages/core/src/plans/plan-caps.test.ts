import { describe, expect, it } from "vitest";
import { sealAuditChains } from "../audit/seal-audit-chain.ts";
import { callOperation, refusalCode, refusalOf, sendBody } from "../testing/guard-rail-calls.ts";
import { createMessagingScenario } from "../testing/messaging-scenario.ts";
import { checkPlanCap } from "./plan-caps.ts";
import { effectiveLimits, PLANS } from "./plan-limits.ts";

describe("plan caps", () => {
  it("refuses creating an AI account past the cap (revoked ones do not count) and audits the refusal", async () => {
    const s = await createMessagingScenario();
    const deps = s.world.deps;
    // alice, bob and admin exist: a cap of 4 leaves room for one.
    await deps.stores.plans.setWorkspacePlan({ plan: { workspaceId: s.alice.workspace.id, plan: "free", overrides: { aiAccounts: 4 } }, now: deps.clock.now() });
    const created = (await callOperation(deps, s.admin, "create_ai_account", { friendly_name: "dave" })).body as { id: string };
    const refusal = await refusalOf(callOperation(deps, s.admin, "create_ai_account", { friendly_name: "erin" }));
    expect(refusal).toMatchObject({ code: "SVC_PLAN_LIMIT_EXCEEDED", details: { limit: "ai_accounts", cap: 4, used: 4 } });
    await callOperation(deps, s.admin, "revoke_ai_account", { ai_account_id: created.id });
    expect((await callOperation(deps, s.admin, "create_ai_account", { friendly_name: "erin" })).status).toBe(201);
    await sealAuditChains(deps);
    const log = (await callOperation(deps, s.admin, "browse_audit_log", { activity: "ai_account.create_refused" })).body as { items: { details: Record<string, unknown> }[] };
    expect(log.items.map((r) => r.details["code"])).toEqual(["SVC_PLAN_LIMIT_EXCEEDED"]);
  });

  it("caps messages accepted per UTC calendar month; the month rolls at the UTC boundary; validate does not count", async () => {
    const s = await createMessagingScenario();
    const deps = s.world.deps;
    s.world.clock.set(new Date("2026-01-31T23:59:58.000Z"));
    await deps.stores.plans.setWorkspacePlan({ plan: { workspaceId: s.alice.workspace.id, plan: "standard", overrides: { messagesPerMonth: 3 } }, now: deps.clock.now() });
    for (let i = 0; i < 3; i++) expect((await callOperation(deps, s.alice, "send", sendBody())).status).toBe(201);
    expect(await refusalOf(callOperation(deps, s.alice, "send", sendBody()))).toMatchObject({ code: "SVC_PLAN_LIMIT_EXCEEDED", details: { limit: "messages_per_month", cap: 3, used: 3, month: "2026-01", resets_at: "2026-02-01T00:00:00.000Z" } });
    expect(await refusalCode(callOperation(deps, s.alice, "validate", sendBody()))).toBe("SVC_PLAN_LIMIT_EXCEEDED");
    s.world.clock.set(new Date("2026-01-31T23:59:59.999Z"));
    expect(await refusalCode(callOperation(deps, s.alice, "send", sendBody()))).toBe("SVC_PLAN_LIMIT_EXCEEDED");
    s.world.clock.set(new Date("2026-02-01T00:00:00.000Z"));
    expect((await callOperation(deps, s.alice, "validate", sendBody())).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await callOperation(deps, s.alice, "send", sendBody())).status).toBe(201);
    expect(await refusalCode(callOperation(deps, s.alice, "send", sendBody()))).toBe("SVC_PLAN_LIMIT_EXCEEDED");
    const refused = await deps.stores.audit.list({ workspaceId: s.alice.workspace.id, activity: "message.send_refused", messageId: null, includeOperatorSignificant: false, after: null, limit: 10 });
    expect(refused.map((r) => r.details["code"])).toEqual(["SVC_PLAN_LIMIT_EXCEEDED", "SVC_PLAN_LIMIT_EXCEEDED", "SVC_PLAN_LIMIT_EXCEEDED"]);
  });

  it("counts sends of other processes once its estimate is older than a minute or near the cap", async () => {
    const s = await createMessagingScenario();
    const deps = s.world.deps;
    s.world.clock.set(new Date("2026-05-10T00:00:00.000Z"));
    await deps.stores.plans.setWorkspacePlan({ plan: { workspaceId: s.alice.workspace.id, plan: "standard", overrides: { messagesPerMonth: 100 } }, now: deps.clock.now() });
    expect((await callOperation(deps, s.alice, "send", sendBody())).status).toBe(201);
    // Another process's sends: rows this process's estimate has not seen.
    for (let i = 0; i < 99; i++) await deps.stores.audit.append({ entry: { id: deps.ids.next(), workspaceId: s.alice.workspace.id, occurredAt: deps.clock.now(), activity: "message.sent", actorAccountId: null, actorCredentialId: null, subjectType: "message", subjectId: deps.ids.next(), messageId: null, details: {}, operatorSignificant: false, requestId: null } });
    // Within the minute and far below 90% the estimate is trusted...
    expect((await callOperation(deps, s.alice, "send", sendBody())).status).toBe(201);
    // ...after it, the count is read again.
    s.world.clock.advance(60_000);
    expect(await refusalCode(callOperation(deps, s.alice, "send", sendBody()))).toBe("SVC_PLAN_LIMIT_EXCEEDED");
  });

  it("checkPlanCap (projects) and the plan defaults", () => {
    expect(() => checkPlanCap("projects", 3, 2)).not.toThrow();
    expect(() => checkPlanCap("projects", 3, 3)).toThrow(expect.objectContaining({ code: "SVC_PLAN_LIMIT_EXCEEDED", details: { limit: "projects", cap: 3, used: 3 } }));
    expect(() => checkPlanCap("projects", null, 1_000_000)).not.toThrow();
    expect(effectiveLimits(null)).toEqual({ plan: "standard", ...PLANS.standard });
    expect(effectiveLimits({ workspaceId: "w", plan: "free", overrides: { projects: 7, messagesPerMonth: null } })).toMatchObject({ plan: "free", projects: 7, messagesPerMonth: null, aiAccounts: 10 });
  });
});
