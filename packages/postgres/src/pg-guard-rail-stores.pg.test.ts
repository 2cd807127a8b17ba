import { fixtureId, makeAuditEntry, seedWorkspace, type SeededWorkspace } from "@agentq/core/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { PgPlanStore, PgPolicyStore, PgRateLimiter } from "./pg-guard-rail-stores.ts";
import { createPgStores, PgTxRunner } from "./pg-stores.ts";
import { createTestSchema, type TestSchema } from "./testing/test-schema.ts";

let db: TestSchema;
beforeAll(async () => {
  db = await createTestSchema({ max: 10 });
});
afterAll(async () => {
  await db.drop();
});

const AT = new Date("2026-03-01T12:00:00.000Z");

describe("PgPolicyStore", () => {
  let w: SeededWorkspace;
  let policies: PgPolicyStore;
  beforeEach(async () => {
    w = await seedWorkspace(createPgStores(db.sql));
    policies = new PgPolicyStore(db.sql);
  });
  const publish = (name: string, required: boolean, body = "text") => policies.publish({ workspaceId: w.workspace.id, name, newId: fixtureId(), required, kind: "acknowledgement", holds: null, body, publishedAt: AT, publishedBy: w.sender.id });

  it("publishes version 1 under the new id, then later versions under the same id; concurrent publishes each get their own version", async () => {
    const v1 = await publish("conduct", true, "be kind");
    expect(v1).toMatchObject({ workspaceId: w.workspace.id, name: "conduct", version: 1, required: true, body: "be kind", publishedAt: AT, publishedBy: w.sender.id });
    const more = await Promise.all(Array.from({ length: 6 }, (_, i) => publish("conduct", i % 2 === 0, `v${i}`)));
    expect(more.map((p) => p.id).every((id) => id === v1.id)).toBe(true);
    expect(more.map((p) => p.version).sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7]);
    const current = await policies.findCurrent({ workspaceId: w.workspace.id, policyId: v1.id });
    expect(current?.version).toBe(7);
    expect(current).toEqual(more.find((p) => p.version === 7));
    expect(await policies.findCurrent({ workspaceId: w.workspace.id, policyId: fixtureId() })).toBeNull();
  });

  it("acknowledges only the current version: stale, unknown_version and not_found otherwise; the gate lists what is missing", async () => {
    const conduct = await publish("conduct", true);
    const style = await publish("style", false);
    const gate = () => policies.unacknowledgedRequired({ workspaceId: w.workspace.id, accountId: w.sender.id, limit: 10 });
    expect(await gate()).toEqual([{ policyId: conduct.id, name: "conduct", version: 1 }]);
    const ack = (policyId: string, version: number) => policies.acknowledge({ workspaceId: w.workspace.id, policyId, accountId: w.sender.id, version, now: AT });
    expect(await ack(conduct.id, 1)).toMatchObject({ kind: "acknowledged", policy: { id: conduct.id, version: 1 }, acknowledgedAt: AT });
    expect(await gate()).toEqual([]);
    await publish("conduct", true);
    expect(await gate()).toEqual([{ policyId: conduct.id, name: "conduct", version: 2 }]);
    expect(await ack(conduct.id, 1)).toMatchObject({ kind: "stale", current: { version: 2 } });
    expect(await ack(conduct.id, 3)).toMatchObject({ kind: "unknown_version", current: { version: 2 } });
    expect(await ack(fixtureId(), 1)).toEqual({ kind: "not_found" });
    expect((await ack(conduct.id, 2)).kind).toBe("acknowledged");
    expect((await ack(conduct.id, 2)).kind).toBe("acknowledged");
    const list = await policies.listCurrent({ workspaceId: w.workspace.id, accountId: w.sender.id, after: null, limit: 1 });
    expect(list.map((i) => [i.policy.name, i.policy.version, i.acknowledgedVersion])).toEqual([["conduct", 2, 2], ["style", 1, null]]);
    expect((await policies.listCurrent({ workspaceId: w.workspace.id, accountId: w.sender.id, after: "conduct", limit: 10 })).map((i) => i.policy.id)).toEqual([style.id]);
    // Another account has acknowledged nothing.
    expect(await policies.unacknowledgedRequired({ workspaceId: w.workspace.id, accountId: w.recipient.id, limit: 10 })).toHaveLength(1);
  });

  it("an acknowledgement racing a publish never records a version that is no longer current", async () => {
    const p = await publish("conduct", true);
    for (let round = 1; round <= 5; round++) {
      const [published, acked] = await Promise.all([
        publish("conduct", true),
        policies.acknowledge({ workspaceId: w.workspace.id, policyId: p.id, accountId: w.sender.id, version: round, now: AT }),
      ]);
      const current = await policies.findCurrent({ workspaceId: w.workspace.id, policyId: p.id });
      expect(current?.version).toBe(published.version);
      // Whatever the order, the gate is right: the new version is never taken as acknowledged.
      expect(await policies.unacknowledgedRequired({ workspaceId: w.workspace.id, accountId: w.sender.id, limit: 10 })).toEqual([{ policyId: p.id, name: "conduct", version: published.version }]);
      expect(["acknowledged", "stale"]).toContain(acked.kind);
    }
  });
});

describe("PgPlanStore", () => {
  it("stores a plan row with its overrides and counts live accounts and the month's sent messages", async () => {
    const stores = createPgStores(db.sql);
    const w = await seedWorkspace(stores);
    const plans = new PgPlanStore(db.sql);
    expect(await plans.findWorkspacePlan({ workspaceId: w.workspace.id })).toBeNull();
    await plans.setWorkspacePlan({ plan: { workspaceId: w.workspace.id, plan: "free", overrides: { aiAccounts: 2, messagesPerMonth: null } }, now: AT });
    await plans.setWorkspacePlan({ plan: { workspaceId: w.workspace.id, plan: "enterprise", overrides: { aiAccounts: 5 } }, now: AT });
    expect(await plans.findWorkspacePlan({ workspaceId: w.workspace.id })).toEqual({ workspaceId: w.workspace.id, plan: "enterprise", overrides: { aiAccounts: 5 } });
    expect(await plans.countLiveAccounts({ workspaceId: w.workspace.id })).toBe(3);
    await stores.accounts.transition({ workspaceId: w.workspace.id, accountId: w.bystander.id, from: ["active"], to: "revoked", now: AT });
    expect(await plans.countLiveAccounts({ workspaceId: w.workspace.id })).toBe(2);
    const inMarch = (day: number) => new Date(Date.UTC(2026, 2, day));
    for (const at of [inMarch(1), inMarch(15), inMarch(31), new Date(Date.UTC(2026, 3, 1)), new Date(Date.UTC(2026, 1, 28, 23, 59, 59))]) {
      await stores.audit.append({ entry: makeAuditEntry(w.workspace.id, { activity: "message.sent", occurredAt: at }) });
    }
    await stores.audit.append({ entry: makeAuditEntry(w.workspace.id, { activity: "message.claimed", occurredAt: inMarch(2) }) });
    expect(await plans.countMessagesAccepted({ workspaceId: w.workspace.id, from: inMarch(1), to: new Date(Date.UTC(2026, 3, 1)) })).toBe(3);
  });
});

describe("PgRateLimiter", () => {
  it("counts every concurrent hit exactly, per credential and per workspace, and reads without spending", async () => {
    const limiter = new PgRateLimiter(db.sql);
    const workspaceId = fixtureId();
    const [c1, c2] = [fixtureId(), fixtureId()];
    const window = new Date(Date.UTC(2026, 2, 1, 12, 0));
    const hits = await Promise.all(Array.from({ length: 40 }, (_, i) => limiter.hit({ workspaceId, credentialId: i % 4 === 0 ? c2 : c1, windowStart: window, cost: 1 })));
    expect(new Set(hits.map((h) => h.workspace)).size).toBe(40);
    expect(await limiter.hit({ workspaceId, credentialId: c1, windowStart: window, cost: 0 })).toEqual({ credential: 30, workspace: 40 });
    expect(await limiter.hit({ workspaceId, credentialId: c2, windowStart: window, cost: 0 })).toEqual({ credential: 10, workspace: 40 });
    const next = new Date(window.getTime() + 60_000);
    expect(await limiter.hit({ workspaceId, credentialId: c1, windowStart: next, cost: 1 })).toEqual({ credential: 1, workspace: 1 });
    expect(await limiter.purgeBefore({ before: next })).toBeGreaterThanOrEqual(3);
    expect(await limiter.hit({ workspaceId, credentialId: c1, windowStart: window, cost: 0 })).toEqual({ credential: 0, workspace: 0 });
  });

  it("is bound to the pool: a hit counts even when the request's transaction rolls back", async () => {
    const limiter = new PgRateLimiter(db.sql);
    const workspaceId = fixtureId();
    const credentialId = fixtureId();
    const window = new Date(Date.UTC(2026, 2, 1, 13, 0));
    await expect(new PgTxRunner(db.sql).run(async () => {
      await limiter.hit({ workspaceId, credentialId, windowStart: window, cost: 1 });
      throw new Error("request failed");
    })).rejects.toThrow("request failed");
    expect(await limiter.hit({ workspaceId, credentialId, windowStart: window, cost: 0 })).toEqual({ credential: 1, workspace: 1 });
  });
});
