import { beforeEach, describe, expect, it } from "vitest";
import type { RateLimiter } from "../ports.ts";
import { fixtureId } from "./access-fixtures.ts";
import { seedWorkspace, type MessagingHarness, type MessagingHarnessFactory, type SeededWorkspace } from "./messaging-harness.ts";
import { makeAuditEntry } from "./messaging-fixtures.ts";

const AT = new Date("2026-03-01T12:00:00.000Z");

/**
 * The contract every PolicyStore adapter passes (InMemoryPolicyStore, PgPolicyStore): versions
 * under one id, serialized concurrent publishes, the caller's acknowledgements, the guarded
 * acknowledge, the send gate, paging, workspace scoping and transactional rollback.
 */
export function describePolicyStoreContract(make: MessagingHarnessFactory): void {
  describe("PolicyStore contract", () => {
    let h: MessagingHarness;
    let w: SeededWorkspace;
    beforeEach(async () => {
      h = await make();
      w = await seedWorkspace(h.stores);
    });
    const publish = (name: string, required: boolean, body = "text", workspaceId = w.workspace.id) => h.stores.policies.publish({ workspaceId, name, newId: fixtureId(), required, kind: "acknowledgement", holds: null, body, publishedAt: AT, publishedBy: w.sender.id });
    const ack = (policyId: string, version: number, accountId = w.sender.id) => h.stores.policies.acknowledge({ workspaceId: w.workspace.id, policyId, accountId, version, now: AT });
    const gate = (accountId = w.sender.id) => h.stores.policies.unacknowledgedRequired({ workspaceId: w.workspace.id, accountId, limit: 10 });

    it("publishes version 1 under a new id and later versions under the same id; concurrent publishes get distinct versions", async () => {
      const v1 = await publish("conduct", true, "be kind");
      expect(v1).toEqual({ workspaceId: w.workspace.id, id: v1.id, name: "conduct", version: 1, required: true, kind: "acknowledgement", holds: null, body: "be kind", publishedAt: AT, publishedBy: w.sender.id });
      const more = await Promise.all(Array.from({ length: 5 }, (_, i) => publish("conduct", false, `v${i}`)));
      expect(new Set(more.map((p) => p.id))).toEqual(new Set([v1.id]));
      expect(more.map((p) => p.version).sort()).toEqual([2, 3, 4, 5, 6]);
      expect(await h.stores.policies.findCurrent({ workspaceId: w.workspace.id, policyId: v1.id })).toEqual(more.find((p) => p.version === 6));
      expect(await h.stores.policies.findCurrent({ workspaceId: w.workspace.id, policyId: fixtureId() })).toBeNull();
    });

    it("keeps an approval version's holds; lists the policies whose current version is an approval, by name", async () => {
      const holds = { templates: ["directive"], recipients: null, senders: ["planner", "ops"], priorities: ["urgent" as const], requireStepUp: true };
      const approval = await h.stores.policies.publish({ workspaceId: w.workspace.id, name: "hold-urgent", newId: fixtureId(), required: false, kind: "approval", holds, body: "A person decides.", publishedAt: AT, publishedBy: null });
      expect(approval).toMatchObject({ kind: "approval", holds, version: 1 });
      await publish("conduct", true);
      const other = await seedWorkspace(h.stores);
      await h.stores.policies.publish({ workspaceId: other.workspace.id, name: "elsewhere", newId: fixtureId(), required: false, kind: "approval", holds, body: "x", publishedAt: AT, publishedBy: null });
      expect(await h.stores.policies.findCurrent({ workspaceId: w.workspace.id, policyId: approval.id })).toEqual(approval);
      expect((await h.stores.policies.listApproval({ workspaceId: w.workspace.id })).map((p) => [p.name, p.holds])).toEqual([["hold-urgent", holds]]);
      // A later acknowledgement version ends it; the approval version keeps its holds in the history.
      await publish("hold-urgent", false);
      expect(await h.stores.policies.listApproval({ workspaceId: w.workspace.id })).toEqual([]);
      expect(await gate()).toEqual([expect.objectContaining({ name: "conduct" })]);
    });

    it("acknowledges only the current version; the gate lists required policies not acknowledged at their current version", async () => {
      const conduct = await publish("conduct", true);
      const style = await publish("style", false);
      expect(await gate()).toEqual([{ policyId: conduct.id, name: "conduct", version: 1 }]);
      expect(await ack(conduct.id, 1)).toMatchObject({ kind: "acknowledged", policy: { id: conduct.id, version: 1 }, acknowledgedAt: AT });
      expect(await ack(conduct.id, 1)).toMatchObject({ kind: "acknowledged" });
      expect(await gate()).toEqual([]);
      expect(await gate(w.recipient.id)).toEqual([{ policyId: conduct.id, name: "conduct", version: 1 }]);
      await publish("conduct", true);
      expect(await gate()).toEqual([{ policyId: conduct.id, name: "conduct", version: 2 }]);
      expect(await ack(conduct.id, 1)).toMatchObject({ kind: "stale", current: { version: 2 } });
      expect(await ack(conduct.id, 3)).toMatchObject({ kind: "unknown_version", current: { version: 2 } });
      expect(await ack(fixtureId(), 1)).toEqual({ kind: "not_found" });
      await publish("conduct", false);
      expect(await gate()).toEqual([]);
      expect(await ack(style.id, 1)).toMatchObject({ kind: "acknowledged" });
    });

    it("lists who acknowledged a policy (each account's last version), by account id with keyset paging, scoped by workspace", async () => {
      const conduct = await publish("conduct", true);
      expect(await h.stores.policies.listAcknowledgements({ workspaceId: w.workspace.id, policyId: conduct.id, after: null, limit: 10 })).toEqual([]);
      await ack(conduct.id, 1, w.sender.id);
      await publish("conduct", true);
      await ack(conduct.id, 2, w.recipient.id);
      const [first, second] = [w.sender.id, w.recipient.id].sort();
      const all = await h.stores.policies.listAcknowledgements({ workspaceId: w.workspace.id, policyId: conduct.id, after: null, limit: 10 });
      expect(all).toEqual(
        [
          { accountId: w.sender.id, version: 1, acknowledgedAt: AT },
          { accountId: w.recipient.id, version: 2, acknowledgedAt: AT },
        ].sort((a, b) => (a.accountId < b.accountId ? -1 : 1)),
      );
      expect((await h.stores.policies.listAcknowledgements({ workspaceId: w.workspace.id, policyId: conduct.id, after: null, limit: 1 })).map((a) => a.accountId)).toEqual([first, second]);
      expect((await h.stores.policies.listAcknowledgements({ workspaceId: w.workspace.id, policyId: conduct.id, after: first ?? null, limit: 1 })).map((a) => a.accountId)).toEqual([second]);
      const other = await seedWorkspace(h.stores);
      expect(await h.stores.policies.listAcknowledgements({ workspaceId: other.workspace.id, policyId: conduct.id, after: null, limit: 10 })).toEqual([]);
    });

    it("lists current versions by name with the account's acknowledgement, paged by name, scoped by workspace", async () => {
      const b = await publish("b-policy", true);
      await publish("a-policy", false);
      await publish("c-policy", false);
      await publish("b-policy", true, "second");
      await ack(b.id, 2);
      const other = await seedWorkspace(h.stores);
      await publish("a-policy", true, "elsewhere", other.workspace.id);
      const page1 = await h.stores.policies.listCurrent({ workspaceId: w.workspace.id, accountId: w.sender.id, after: null, limit: 2 });
      expect(page1.map((i) => [i.policy.name, i.policy.version, i.acknowledgedVersion])).toEqual([
        ["a-policy", 1, null],
        ["b-policy", 2, 2],
        ["c-policy", 1, null],
      ]);
      expect(page1[1]?.acknowledgedAt).toEqual(AT);
      const page2 = await h.stores.policies.listCurrent({ workspaceId: w.workspace.id, accountId: w.sender.id, after: "b-policy", limit: 2 });
      expect(page2.map((i) => i.policy.name)).toEqual(["c-policy"]);
      const forRecipient = await h.stores.policies.listCurrent({ workspaceId: w.workspace.id, accountId: w.recipient.id, after: null, limit: 10 });
      expect(forRecipient.map((i) => i.acknowledgedVersion)).toEqual([null, null, null]);
    });

    it("leaves nothing behind when the publishing or acknowledging transaction rolls back", async () => {
      await expect(
        h.tx.run(async (stores) => {
          await stores.policies.publish({ workspaceId: w.workspace.id, name: "gone", newId: fixtureId(), required: true, kind: "acknowledgement", holds: null, body: "x", publishedAt: AT, publishedBy: null });
          throw new Error("rollback");
        }),
      ).rejects.toThrow("rollback");
      expect(await gate()).toEqual([]);
      const kept = await publish("kept", true);
      await expect(
        h.tx.run(async (stores) => {
          await stores.policies.acknowledge({ workspaceId: w.workspace.id, policyId: kept.id, accountId: w.sender.id, version: 1, now: AT });
          throw new Error("rollback");
        }),
      ).rejects.toThrow("rollback");
      expect(await gate()).toEqual([{ policyId: kept.id, name: "kept", version: 1 }]);
    });
  });
}

/** The contract every PlanStore adapter passes (InMemoryPlanStore, PgPlanStore). */
export function describePlanStoreContract(make: MessagingHarnessFactory): void {
  describe("PlanStore contract", () => {
    let h: MessagingHarness;
    let w: SeededWorkspace;
    beforeEach(async () => {
      h = await make();
      w = await seedWorkspace(h.stores);
    });

    it("stores, replaces and reads the workspace's plan row, keeping null (unlimited) overrides", async () => {
      expect(await h.stores.plans.findWorkspacePlan({ workspaceId: w.workspace.id })).toBeNull();
      await h.stores.plans.setWorkspacePlan({ plan: { workspaceId: w.workspace.id, plan: "free", overrides: { aiAccounts: 3, messagesPerMonth: null } }, now: AT });
      expect(await h.stores.plans.findWorkspacePlan({ workspaceId: w.workspace.id })).toEqual({ workspaceId: w.workspace.id, plan: "free", overrides: { aiAccounts: 3, messagesPerMonth: null } });
      await h.stores.plans.setWorkspacePlan({ plan: { workspaceId: w.workspace.id, plan: "enterprise", overrides: {} }, now: AT });
      expect(await h.stores.plans.findWorkspacePlan({ workspaceId: w.workspace.id })).toEqual({ workspaceId: w.workspace.id, plan: "enterprise", overrides: {} });
      expect(await h.stores.plans.findWorkspacePlan({ workspaceId: (await seedWorkspace(h.stores)).workspace.id })).toBeNull();
    });

    it("counts the workspace's accounts that are not revoked", async () => {
      expect(await h.stores.plans.countLiveAccounts({ workspaceId: w.workspace.id })).toBe(3);
      await h.stores.accounts.transition({ workspaceId: w.workspace.id, accountId: w.bystander.id, from: ["active"], to: "frozen", now: AT });
      expect(await h.stores.plans.countLiveAccounts({ workspaceId: w.workspace.id })).toBe(3);
      await h.stores.accounts.transition({ workspaceId: w.workspace.id, accountId: w.bystander.id, from: ["frozen"], to: "revoked", now: AT });
      expect(await h.stores.plans.countLiveAccounts({ workspaceId: w.workspace.id })).toBe(2);
    });

    it("counts message.sent audit rows of the workspace in [from, to)", async () => {
      const from = new Date("2026-03-01T00:00:00.000Z");
      const to = new Date("2026-04-01T00:00:00.000Z");
      const other = await seedWorkspace(h.stores);
      const rows = [
        makeAuditEntry(w.workspace.id, { activity: "message.sent", occurredAt: new Date("2026-02-28T23:59:59.999Z") }),
        makeAuditEntry(w.workspace.id, { activity: "message.sent", occurredAt: from }),
        makeAuditEntry(w.workspace.id, { activity: "message.sent", occurredAt: new Date("2026-03-31T23:59:59.999Z") }),
        makeAuditEntry(w.workspace.id, { activity: "message.claimed", occurredAt: new Date("2026-03-15T00:00:00.000Z") }),
        makeAuditEntry(w.workspace.id, { activity: "message.sent", occurredAt: to }),
        makeAuditEntry(other.workspace.id, { activity: "message.sent", occurredAt: new Date("2026-03-15T00:00:00.000Z") }),
      ];
      for (const entry of rows) await h.stores.audit.append({ entry });
      expect(await h.stores.plans.countMessagesAccepted({ workspaceId: w.workspace.id, from, to })).toBe(2);
    });
  });
}

/**
 * The contract every RateLimiter adapter passes (InProcessRateLimiter, PgRateLimiter): per
 * credential and per workspace totals per window, cost 0, no lost counts under concurrency, purge.
 * `make` returns a limiter shared by the whole suite's tests' workspaces (ids are fresh per test).
 */
export function describeRateLimiterContract(make: () => Promise<RateLimiter>): void {
  describe("RateLimiter contract", () => {
    let limiter: RateLimiter;
    beforeEach(async () => {
      limiter = await make();
    });
    const minute = (n: number) => new Date(Date.UTC(2030, 0, 1, 0, n));

    it("counts the credential and its workspace per window; cost 0 reads without spending", async () => {
      const ws = fixtureId();
      const [c1, c2] = [fixtureId(), fixtureId()];
      expect(await limiter.hit({ workspaceId: ws, credentialId: c1, windowStart: minute(0), cost: 1 })).toEqual({ credential: 1, workspace: 1 });
      expect(await limiter.hit({ workspaceId: ws, credentialId: c1, windowStart: minute(0), cost: 1 })).toEqual({ credential: 2, workspace: 2 });
      expect(await limiter.hit({ workspaceId: ws, credentialId: c2, windowStart: minute(0), cost: 1 })).toEqual({ credential: 1, workspace: 3 });
      expect(await limiter.hit({ workspaceId: ws, credentialId: c1, windowStart: minute(0), cost: 0 })).toEqual({ credential: 2, workspace: 3 });
      expect(await limiter.hit({ workspaceId: fixtureId(), credentialId: fixtureId(), windowStart: minute(0), cost: 0 })).toEqual({ credential: 0, workspace: 0 });
      expect(await limiter.hit({ workspaceId: ws, credentialId: c1, windowStart: minute(1), cost: 1 })).toEqual({ credential: 1, workspace: 1 });
    });

    it("loses no count under concurrent hits", async () => {
      const ws = fixtureId();
      const creds = [fixtureId(), fixtureId(), fixtureId()];
      await Promise.all(Array.from({ length: 60 }, (_, i) => limiter.hit({ workspaceId: ws, credentialId: creds[i % 3] as string, windowStart: minute(5), cost: 1 })));
      expect(await limiter.hit({ workspaceId: ws, credentialId: creds[0] as string, windowStart: minute(5), cost: 0 })).toEqual({ credential: 20, workspace: 60 });
    });

    it("purges windows that started before a time", async () => {
      const ws = fixtureId();
      const c = fixtureId();
      await limiter.hit({ workspaceId: ws, credentialId: c, windowStart: minute(10), cost: 1 });
      await limiter.hit({ workspaceId: ws, credentialId: c, windowStart: minute(11), cost: 1 });
      // An adapter may already have dropped a finished window on its own (the in-process one does).
      expect(typeof (await limiter.purgeBefore({ before: minute(11) }))).toBe("number");
      expect(await limiter.hit({ workspaceId: ws, credentialId: c, windowStart: minute(10), cost: 0 })).toEqual({ credential: 0, workspace: 0 });
      expect(await limiter.hit({ workspaceId: ws, credentialId: c, windowStart: minute(11), cost: 0 })).toEqual({ credential: 1, workspace: 1 });
    });
  });
}
