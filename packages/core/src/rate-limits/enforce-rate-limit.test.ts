import { describe, expect, it } from "vitest";
import { createMessagingScenario } from "../testing/messaging-scenario.ts";
import { callOperation, refusalCode, refusalOf, sendBody } from "../testing/guard-rail-calls.ts";
import { seedPrincipal } from "../testing/principal-fixtures.ts";
import type { RateLimitStatus } from "./rate-limit-status.ts";
import { InProcessRateLimiter } from "./in-process-rate-limiter.ts";

async function limitedScenario(overrides: { credentialRequestsPerMinute?: number; workspaceRequestsPerMinute?: number }) {
  const s = await createMessagingScenario();
  s.world.clock.set(new Date("2026-03-01T10:00:15.000Z"));
  await s.world.deps.stores.plans.setWorkspacePlan({ plan: { workspaceId: s.alice.workspace.id, plan: "standard", overrides }, now: s.world.clock.now() });
  const deps = { ...s.world.deps, rateLimiter: new InProcessRateLimiter() };
  return { s, deps };
}

describe("rate limits", () => {
  it("counts per credential per minute, reports the tightest bucket, refuses an empty one with 429 details and Retry-After, and refills at the minute", async () => {
    const { s, deps } = await limitedScenario({ credentialRequestsPerMinute: 3 });
    const seen: RateLimitStatus[] = [];
    for (let i = 0; i < 3; i++) await callOperation(deps, s.alice, "list_templates", {}, { onRateLimit: (st) => seen.push(st) });
    expect(seen.map((st) => st.remaining)).toEqual([2, 1, 0]);
    expect(seen[0]).toEqual({ bucket: "credential", limit: 3, remaining: 2, resetSeconds: 45 });
    const refusal = await refusalOf(callOperation(deps, s.alice, "list_templates", {}, { onRateLimit: (st) => seen.push(st) }));
    expect(refusal).toEqual({ code: "SVC_RATE_LIMITED", details: { bucket: "credential", limit: 3, window: "PT1M" }, retryAfterSeconds: 45 });
    expect(seen[3]).toMatchObject({ remaining: 0, resetSeconds: 45 });
    // Another credential of the workspace has its own bucket.
    expect((await callOperation(deps, s.bob, "list_templates", {})).status).toBe(200);
    // A refused operation (scope) still carries the state.
    s.world.clock.advance(44_999);
    expect(await refusalCode(callOperation(deps, s.alice, "list_templates", {}))).toBe("SVC_RATE_LIMITED");
    s.world.clock.advance(1);
    expect((await callOperation(deps, s.alice, "list_templates", {})).status).toBe(200);
  });

  it("shares the workspace bucket across its credentials", async () => {
    const { s, deps } = await limitedScenario({ workspaceRequestsPerMinute: 4 });
    const carol = await seedPrincipal(s.world.deps.stores, s.alice.workspace, { friendlyName: "carol" });
    let last: RateLimitStatus | undefined;
    for (const who of [s.alice, s.bob, carol, s.alice]) await callOperation(deps, who, "list_templates", {}, { onRateLimit: (st) => (last = st) });
    expect(last).toMatchObject({ bucket: "workspace", limit: 4, remaining: 0 });
    expect(await refusalOf(callOperation(deps, carol, "list_templates", {}))).toMatchObject({ code: "SVC_RATE_LIMITED", details: { bucket: "workspace", limit: 4, window: "PT1M" } });
  });

  it("validate spends no token (but is refused when the bucket is empty); refused calls of other kinds carry the state too", async () => {
    const { s, deps } = await limitedScenario({ credentialRequestsPerMinute: 2 });
    let last: RateLimitStatus | undefined;
    for (let i = 0; i < 5; i++) expect((await callOperation(deps, s.alice, "validate", sendBody(), { onRateLimit: (st) => (last = st) })).status).toBe(200);
    expect(last).toMatchObject({ remaining: 2 });
    expect(await refusalCode(callOperation(deps, s.alice, "list_ai_accounts", {}, { onRateLimit: (st) => (last = st) }))).toBe("SVC_TIER_INSUFFICIENT");
    expect(last).toMatchObject({ remaining: 1 });
    await callOperation(deps, s.alice, "send", sendBody());
    expect(await refusalCode(callOperation(deps, s.alice, "validate", sendBody()))).toBe("SVC_RATE_LIMITED");
  });

  it("applies the plan defaults without a plan row", async () => {
    const s = await createMessagingScenario();
    const deps = { ...s.world.deps, rateLimiter: new InProcessRateLimiter() };
    let last: RateLimitStatus | undefined;
    await callOperation(deps, s.alice, "list_templates", {}, { onRateLimit: (st) => (last = st) });
    expect(last).toMatchObject({ bucket: "credential", limit: 600, remaining: 599 });
  });
});
