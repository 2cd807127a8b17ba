import { beforeEach, describe, expect, it } from "vitest";
import type { NewMessage } from "../messaging/message.ts";
import type { WebhookRecord } from "../webhooks/webhook.ts";
import { fixtureId } from "./access-fixtures.ts";
import { seedWorkspace, type MessagingHarness, type MessagingHarnessFactory, type SeededWorkspace } from "./messaging-harness.ts";
import { makeAuditEntry, makeNewMessage } from "./messaging-fixtures.ts";

const AT = new Date("2026-01-01T00:00:00.000Z");

/** A live webhook of `w.recipient` (override any field). */
export function makeWebhook(w: SeededWorkspace, overrides: Partial<WebhookRecord> = {}): WebhookRecord {
  return {
    id: fixtureId(),
    workspaceId: w.workspace.id,
    aiAccountId: w.recipient.id,
    url: "https://hooks.example.com/agentq",
    name: "hook",
    filter: { templates: null, minPriority: null },
    maxAttempts: 6,
    signingKeys: [{ id: fixtureId(), seal: "c2VhbA==", createdAt: AT, expiresAt: null }],
    createdAt: AT,
    updatedAt: AT,
    deletedAt: null,
    ...overrides,
  };
}

/**
 * The contract of WebhookStore and WebhookOutbox (InMemory*, Pg*): the outbox rows a send writes
 * (filter honoured, deleted webhooks skipped), management reads and writes, the rotation
 * compare-and-set, the purge on delete, and the dispatcher's claim (disjoint under concurrency,
 * leased, guarded by the claim token). `claimDue` sees every workspace, so assertions look only
 * at this test's rows and claims never use a lease shorter than the test unless they mean to.
 */
export function describeWebhookStoresContract(make: MessagingHarnessFactory): void {
  describe("WebhookStore and WebhookOutbox contract", () => {
    let h: MessagingHarness;
    let w: SeededWorkspace;

    beforeEach(async () => {
      h = await make();
      w = await seedWorkspace(h.stores);
    });

    async function send(overrides: Partial<NewMessage> = {}) {
      const message = makeNewMessage({ sender: w.sender, recipient: w.recipient, now: await h.stores.messages.now() }, overrides);
      const r = await h.stores.messages.acceptSend({ message, audit: makeAuditEntry(message.workspaceId, { activity: "message.sent", messageId: message.id, occurredAt: message.acceptedAt }), idempotency: null });
      if (r.kind !== "accepted") throw new Error(r.kind);
      return r.message;
    }
    async function hook(overrides: Partial<WebhookRecord> = {}) {
      const webhook = makeWebhook(w, overrides);
      await h.stores.webhooks.insert({ webhook });
      return webhook;
    }
    const deliveries = (webhookId: string) => h.stores.webhooks.listDeliveries({ workspaceId: w.workspace.id, webhookId, state: null, after: null, limit: 100 });
    const claimMine = async (leaseMs = 60_000, token = fixtureId()) => (await h.stores.outbox.claimDue({ max: 1000, leaseMs, claimToken: token })).filter((c) => c.delivery.workspaceId === w.workspace.id);

    it("a send writes one message.sent row per live webhook of the recipient whose filter matches", async () => {
      const all = await hook();
      const notes = await hook({ filter: { templates: ["note"], minPriority: null } });
      const urgent = await hook({ filter: { templates: null, minPriority: "high" } });
      const other = await hook({ aiAccountId: w.bystander.id });
      const gone = await hook();
      await h.stores.webhooks.softDelete({ workspaceId: w.workspace.id, webhookId: gone.id, now: AT });
      const m = await send({ template: "directive", priority: "normal" });
      const rows = await deliveries(all.id);
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ messageId: m.id, eventType: "message.sent", state: "pending", attempts: 0, webhookId: all.id });
      expect(rows[0]?.payload).toMatchObject({ message_id: m.id, template: "directive", priority: "normal", sender: { ai_account_id: w.sender.id }, recipient: { ai_account_id: w.recipient.id } });
      expect(await deliveries(notes.id)).toHaveLength(0);
      expect(await deliveries(urgent.id)).toHaveLength(0);
      expect(await deliveries(other.id)).toHaveLength(0);
      expect(await deliveries(gone.id)).toHaveLength(0);
      await send({ template: "note", priority: "urgent" });
      expect(await deliveries(notes.id)).toHaveLength(1);
      expect(await deliveries(urgent.id)).toHaveLength(1);
      expect(await deliveries(all.id)).toHaveLength(2);
    });

    it("finds, lists (paged, by account), updates live webhooks; another workspace sees nothing", async () => {
      const a = await hook();
      const b = await hook({ aiAccountId: w.bystander.id });
      expect(await h.stores.webhooks.findLive({ workspaceId: w.workspace.id, webhookId: a.id })).toMatchObject({ id: a.id, url: a.url, filter: a.filter, maxAttempts: 6 });
      expect(await h.stores.webhooks.findLive({ workspaceId: "01JZZZZZZZZZZZZZZZZZZZZZZZ", webhookId: a.id })).toBeNull();
      const first = await h.stores.webhooks.list({ workspaceId: w.workspace.id, aiAccountId: null, after: null, limit: 1 });
      expect(first.map((x) => x.id)).toEqual([a.id, b.id]);
      expect((await h.stores.webhooks.list({ workspaceId: w.workspace.id, aiAccountId: null, after: a.id, limit: 1 })).map((x) => x.id)).toEqual([b.id]);
      expect((await h.stores.webhooks.list({ workspaceId: w.workspace.id, aiAccountId: w.bystander.id, after: null, limit: 10 })).map((x) => x.id)).toEqual([b.id]);
      const later = new Date(AT.getTime() + 1000);
      const updated = await h.stores.webhooks.update({ workspaceId: w.workspace.id, webhookId: a.id, changes: { name: "renamed", filter: { templates: ["note", "result"], minPriority: "low" }, maxAttempts: 3 }, now: later });
      expect(updated).toMatchObject({ name: "renamed", url: a.url, filter: { templates: ["note", "result"], minPriority: "low" }, maxAttempts: 3, updatedAt: later });
      expect(await h.stores.webhooks.update({ workspaceId: w.workspace.id, webhookId: fixtureId(), changes: { name: "x" }, now: later })).toBeNull();
    });

    it("rotation is a compare-and-set on the current key: of many concurrent rotations exactly one wins", async () => {
      const a = await hook();
      const current = a.signingKeys[0]!;
      const attempts = await Promise.all(
        Array.from({ length: 8 }, () => {
          const fresh = { id: fixtureId(), seal: "bmV3", createdAt: AT, expiresAt: null };
          return h.stores.webhooks.replaceSigningKeys({ workspaceId: w.workspace.id, webhookId: a.id, expectedCurrentKeyId: current.id, keys: [fresh, { ...current, expiresAt: new Date(AT.getTime() + 60_000) }], now: AT });
        }),
      );
      expect(attempts.filter((r) => r.kind === "rotated")).toHaveLength(1);
      expect(attempts.filter((r) => r.kind === "conflict")).toHaveLength(7);
      const after = await h.stores.webhooks.findLive({ workspaceId: w.workspace.id, webhookId: a.id });
      expect(after?.signingKeys).toHaveLength(2);
      expect(after?.signingKeys[1]).toMatchObject({ id: current.id, expiresAt: new Date(AT.getTime() + 60_000) });
      expect((await h.stores.webhooks.replaceSigningKeys({ workspaceId: w.workspace.id, webhookId: fixtureId(), expectedCurrentKeyId: current.id, keys: [], now: AT })).kind).toBe("not_found");
    });

    it("soft delete purges pending and retrying rows, keeps finished ones, and later sends write none", async () => {
      const a = await hook();
      await send();
      await send();
      await send();
      const token = fixtureId();
      const claimed = await claimMine(60_000, token);
      expect(claimed).toHaveLength(3);
      const [c1, c2] = claimed;
      expect(await h.stores.outbox.recordSuccess({ workspaceId: w.workspace.id, deliveryId: c1!.delivery.id, claimToken: token, status: 200 })).toBe(true);
      expect(await h.stores.outbox.recordFailure({ workspaceId: w.workspace.id, deliveryId: c2!.delivery.id, claimToken: token, status: 500, error: "status_500", retryInMs: 60_000 })).toMatchObject({ state: "retrying", attempts: 1 });
      await send();
      const deleted = await h.stores.webhooks.softDelete({ workspaceId: w.workspace.id, webhookId: a.id, now: AT });
      expect(deleted?.purged).toBe(3);
      expect(deleted?.webhook.deletedAt).toEqual(AT);
      expect((await deliveries(a.id)).map((d) => d.state)).toEqual(["delivered"]);
      expect(await h.stores.webhooks.softDelete({ workspaceId: w.workspace.id, webhookId: a.id, now: AT })).toBeNull();
      expect(await h.stores.webhooks.findLive({ workspaceId: w.workspace.id, webhookId: a.id })).toBeNull();
      await send();
      expect(await deliveries(a.id)).toHaveLength(1);
    });

    it("concurrent claims take disjoint rows; a leased row is not claimed again until its lease runs out", async () => {
      const a = await hook();
      for (let i = 0; i < 12; i++) await send();
      const batches = await Promise.all(Array.from({ length: 6 }, () => h.stores.outbox.claimDue({ max: 3, leaseMs: 60_000, claimToken: fixtureId() })));
      const mine = batches.flat().filter((c) => c.delivery.workspaceId === w.workspace.id);
      const ids = mine.map((c) => c.delivery.id);
      expect(new Set(ids).size).toBe(ids.length);
      const rest = await claimMine();
      expect(ids.length + rest.length).toBe(12);
      expect(await claimMine()).toHaveLength(0);
      expect(mine[0]).toMatchObject({ url: a.url, maxAttempts: 6, signingKeys: [{ id: a.signingKeys[0]!.id, seal: a.signingKeys[0]!.seal }] });
    });

    it("a row whose lease ran out is claimed again and the old claim loses", async () => {
      await hook();
      await send();
      const [first] = await claimMine(0, "token-old");
      expect(first).toBeDefined();
      const [second] = await claimMine(60_000, "token-new");
      expect(second?.delivery.id).toBe(first!.delivery.id);
      expect(await h.stores.outbox.recordSuccess({ workspaceId: w.workspace.id, deliveryId: first!.delivery.id, claimToken: "token-old", status: 200 })).toBe(false);
      expect(await h.stores.outbox.recordFailure({ workspaceId: w.workspace.id, deliveryId: first!.delivery.id, claimToken: "token-old", status: null, error: "timeout", retryInMs: 0 })).toBeNull();
      expect(await h.stores.outbox.recordSuccess({ workspaceId: w.workspace.id, deliveryId: first!.delivery.id, claimToken: "token-new", status: 204 })).toBe(true);
    });

    it("failures retry until dead; stats count states, last success and failure, recent dead; deliveries list newest first", async () => {
      const a = await hook();
      await send();
      await send();
      const [ok, failing] = await claimMine(60_000, "t1");
      expect(await h.stores.outbox.recordSuccess({ workspaceId: w.workspace.id, deliveryId: ok!.delivery.id, claimToken: "t1", status: 200 })).toBe(true);
      expect(await h.stores.outbox.recordFailure({ workspaceId: w.workspace.id, deliveryId: failing!.delivery.id, claimToken: "t1", status: 503, error: "status_503", retryInMs: 0 })).toMatchObject({ state: "retrying", attempts: 1, lastStatus: 503, lastError: "status_503" });
      const [c] = await claimMine(60_000, "t3");
      expect(c?.delivery.id).toBe(failing!.delivery.id);
      expect(c?.delivery).toMatchObject({ state: "retrying", attempts: 1 });
      const dead = await h.stores.outbox.recordFailure({ workspaceId: w.workspace.id, deliveryId: c!.delivery.id, claimToken: "t3", status: null, error: "timeout", retryInMs: null });
      expect(dead).toMatchObject({ state: "dead", attempts: 2, lastStatus: null, lastError: "timeout" });
      expect(dead?.deadAt).toBeInstanceOf(Date);
      expect(await claimMine()).toHaveLength(0);
      const stats = await h.stores.webhooks.stats({ workspaceId: w.workspace.id, webhookId: a.id, recentDeadLimit: 5 });
      expect(stats.counts).toEqual({ pending: 0, retrying: 0, delivered: 1, dead: 1 });
      expect(stats.lastSuccessAt).toBeInstanceOf(Date);
      expect(stats.lastFailureAt).toBeInstanceOf(Date);
      expect(stats.lastFailureReason).toBe("timeout");
      expect(stats.recentDead.map((d) => d.id)).toEqual([c!.delivery.id]);
      const list = await deliveries(a.id);
      expect(list.map((d) => d.id)).toEqual([c!.delivery.id, ok!.delivery.id].sort().reverse());
      expect((await h.stores.webhooks.listDeliveries({ workspaceId: w.workspace.id, webhookId: a.id, state: "delivered", after: null, limit: 10 })).map((d) => d.id)).toEqual([ok!.delivery.id]);
    });

    it("a delivery that failed and then got through is no longer the last failure", async () => {
      const a = await hook();
      await send();
      const [c] = await claimMine(60_000, "f1");
      await h.stores.outbox.recordFailure({ workspaceId: w.workspace.id, deliveryId: c!.delivery.id, claimToken: "f1", status: 500, error: "status_500", retryInMs: 0 });
      let stats = await h.stores.webhooks.stats({ workspaceId: w.workspace.id, webhookId: a.id, recentDeadLimit: 5 });
      expect(stats).toMatchObject({ counts: { retrying: 1 }, lastSuccessAt: null, lastFailureReason: "status_500" });
      const [again] = await claimMine(60_000, "f2");
      expect(await h.stores.outbox.recordSuccess({ workspaceId: w.workspace.id, deliveryId: again!.delivery.id, claimToken: "f2", status: 200 })).toBe(true);
      stats = await h.stores.webhooks.stats({ workspaceId: w.workspace.id, webhookId: a.id, recentDeadLimit: 5 });
      expect(stats).toMatchObject({ counts: { retrying: 0, delivered: 1 }, lastFailureAt: null, lastFailureReason: null });
      expect(stats.lastSuccessAt).toBeInstanceOf(Date);
      expect((await deliveries(a.id))[0]).toMatchObject({ state: "delivered", attempts: 2, lastError: "status_500", lastStatus: 200 });
    });

    it("purgeFinished deletes delivered and dead rows finished before the cutoff, never pending or retrying ones", async () => {
      const a = await hook();
      for (let i = 0; i < 4; i++) await send();
      const [d1, d2, d3] = await claimMine(60_000, "p1");
      await h.stores.outbox.recordSuccess({ workspaceId: w.workspace.id, deliveryId: d1!.delivery.id, claimToken: "p1", status: 200 });
      await h.stores.outbox.recordFailure({ workspaceId: w.workspace.id, deliveryId: d2!.delivery.id, claimToken: "p1", status: 500, error: "status_500", retryInMs: null });
      await h.stores.outbox.recordFailure({ workspaceId: w.workspace.id, deliveryId: d3!.delivery.id, claimToken: "p1", status: 500, error: "status_500", retryInMs: 60_000 });
      const now = await h.stores.messages.now();
      expect(await h.stores.outbox.purgeFinished({ finishedBefore: new Date(now.getTime() - 60_000), limit: 100 })).toBe(0);
      await h.advance(120_000);
      const later = await h.stores.messages.now();
      let purged = 0;
      for (let n = 1; n > 0; purged += n) n = await h.stores.outbox.purgeFinished({ finishedBefore: new Date(later.getTime() - 60_000), limit: 100 });
      expect(purged).toBeGreaterThanOrEqual(2);
      expect((await deliveries(a.id)).map((d) => d.state).sort()).toEqual(["pending", "retrying"]);
    });

    it("claims skip rows of deleted webhooks", async () => {
      const a = await hook();
      await send();
      await h.stores.webhooks.softDelete({ workspaceId: w.workspace.id, webhookId: a.id, now: AT });
      expect(await claimMine()).toHaveLength(0);
    });
  });
}
