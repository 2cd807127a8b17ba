import type { DeliveryView, WebhookView } from "@agentq/core";
import { listenForOutboxDeliveries } from "@agentq/postgres";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHttpWebhookTransport } from "@agentq/runtime";
import { startTestDispatcher } from "./dispatcher-harness.ts";
import { WebhookReceiver, type ReceivedRequest } from "./webhook-receiver.ts";
import { createWebhookWorld, type WebhookWorld } from "./webhook-world.ts";

// Tests send traffic only to 127.0.0.1: the transport lets loopback through by its test-only option.
const transport = createHttpWebhookTransport({ allowLoopbackForTests: true });

let db: TestSchema;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  db = await createTestSchema({ max: 10 });
});
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.stop()));
  await db.drop();
});

async function receiver(decide?: ConstructorParameters<typeof WebhookReceiver>[0]) {
  const r = await new WebhookReceiver(decide).start();
  receivers.push(r);
  return r;
}

async function createHook(world: WebhookWorld, url: string, extra: Record<string, unknown> = {}) {
  const res = await world.call<{ webhook: WebhookView; signing_secret: string }>(world.admin, "create_webhook", { ai_account_id: world.recipientId, url, name: "push", ...extra });
  expect(res.status).toBe(201);
  return res.body;
}

const verifies = (secret: string, r: ReceivedRequest) => {
  try {
    new Webhook(secret).verify(r.body, r.headers);
    return true;
  } catch {
    return false;
  }
};

const deliveriesOf = async (world: WebhookWorld, webhookId: string, state?: string) =>
  (await world.call<{ items: DeliveryView[] }>(world.admin, "list_webhook_deliveries", { webhook_id: webhookId, limit: 100, ...(state ? { state } : {}) })).body.items;

describe("webhook delivery over PostgreSQL to a real receiver", () => {
  it("every delivery verifies with standardwebhooks, through a key rotation (both signatures during the overlap)", async () => {
    const world = await createWebhookWorld(db.sql, transport);
    const rx = await receiver();
    const { webhook, signing_secret: first } = await createHook(world, rx.url);
    expect(first).toMatch(/^whsec_/);
    expect(rx.requests).toHaveLength(1);
    expect(rx.requests[0]?.event.type).toBe("webhook.verification");
    expect(verifies(first, rx.requests[0]!)).toBe(true);

    const dispatcher = startTestDispatcher(world.deps, transport);
    try {
      const before = [await world.send(), await world.send(), await world.send()];
      await rx.waitFor((rs) => rs.filter((r) => r.event.type === "message.sent").length === 3);
      const rotated = await world.call<{ webhook: WebhookView; signing_secret: string }>(world.admin, "rotate_webhook_signing_key", { webhook_id: webhook.id, overlap_window: "PT1H" });
      expect(rotated.status).toBe(201);
      const second = rotated.body.signing_secret;
      expect(second).not.toBe(first);
      expect(rotated.body.webhook.signing_keys.map((k) => k.state)).toEqual(["current", "previous"]);
      const after = [await world.send(), await world.send(), await world.send()];
      await rx.waitFor((rs) => rs.filter((r) => r.event.type === "message.sent").length === 6);

      const sent = rx.requests.filter((r) => r.event.type === "message.sent");
      expect(sent.map((r) => r.event.data.message_id).sort()).toEqual([...before, ...after].sort());
      for (const r of sent) {
        expect(verifies(first, r) || verifies(second, r)).toBe(true);
        expect(verifies("whsec_" + Buffer.alloc(32, 7).toString("base64"), r)).toBe(false);
        expect(r.event.data).toMatchObject({ recipient: { ai_account_id: world.recipientId }, template: "note" });
      }
      const inOverlap = sent.filter((r) => after.includes(r.event.data.message_id as string));
      for (const r of inOverlap) {
        expect(r.headers["webhook-signature"]?.split(" ")).toHaveLength(2);
        expect(verifies(first, r)).toBe(true);
        expect(verifies(second, r)).toBe(true);
      }
      for (const r of sent.filter((x) => before.includes(x.event.data.message_id as string))) expect(verifies(second, r)).toBe(false);
      await dispatcher.until(async () => (await deliveriesOf(world, webhook.id, "delivered")).length === 6);
      const view = (await world.call<WebhookView>(world.admin, "get_webhook", { webhook_id: webhook.id })).body;
      expect(view.outbox).toEqual({ pending: 0, retrying: 0, delivered: 6, dead: 0 });
      expect(view.health.status).toBe("healthy");
      expect(dispatcher.errors).toEqual([]);
    } finally {
      await dispatcher.stop();
    }
  });

  it("concurrent rotations: each either wins or gets 409 SVC_RESOURCE_CONFLICT, and no rotation is lost", async () => {
    const world = await createWebhookWorld(db.sql, transport);
    const rx = await receiver();
    const { webhook } = await createHook(world, rx.url);
    const results = await Promise.allSettled(Array.from({ length: 8 }, () => world.call(world.admin, "rotate_webhook_signing_key", { webhook_id: webhook.id })));
    const won = results.filter((r) => r.status === "fulfilled").length;
    const lost = results.filter((r): r is PromiseRejectedResult => r.status === "rejected").map((r) => (r.reason as { code: string }).code);
    expect(won).toBeGreaterThanOrEqual(1);
    expect(lost.every((c) => c === "SVC_RESOURCE_CONFLICT")).toBe(true);
    const view = (await world.call<WebhookView>(world.admin, "get_webhook", { webhook_id: webhook.id })).body;
    expect(view.signing_keys).toHaveLength(won + 1);
    const audit = await world.deps.stores.audit.list({ workspaceId: world.workspaceId, activity: "webhook.signing_key_rotated", messageId: null, includeOperatorSignificant: true, after: null, limit: 100 });
    expect(audit).toHaveLength(won);
  });

  it("a receiver that fails N times (500, 302, dropped connection, timeout, 404) then succeeds gets the delivery on attempt N+1", async () => {
    const world = await createWebhookWorld(db.sql, transport);
    const failures = [{ status: 500 }, { status: 302, location: "/elsewhere" }, "destroy", "hang", { status: 404 }] as const;
    const rx = await receiver((r) => {
      if (r.event.type !== "message.sent") return { status: 200 };
      const n = Number(String(r.event.data.correlation_id).replace("fail-", ""));
      return r.attempt <= n ? failures[r.attempt - 1]! : { status: 200 };
    });
    const { webhook } = await createHook(world, rx.url);
    const ids = new Map<number, string>();
    for (let n = 1; n <= 5; n++) ids.set(n, await world.send({ correlationId: `fail-${n}` }));
    const dispatcher = startTestDispatcher(world.deps, transport);
    try {
      await dispatcher.until(async () => (await deliveriesOf(world, webhook.id, "delivered")).length === 5);
      const deliveries = await deliveriesOf(world, webhook.id);
      for (const [n, messageId] of ids) {
        const d = deliveries.find((x) => x.message_id === messageId)!;
        expect(d).toMatchObject({ state: "delivered", attempts: n + 1, last_status: 200 });
        const seen = rx.byId(d.id);
        expect(seen.map((r) => r.attempt)).toEqual(Array.from({ length: n + 1 }, (_, i) => i + 1));
        expect(new Set(seen.map((r) => r.body)).size).toBe(1);
      }
      expect(rx.requests.filter((r) => r.headers["webhook-id"] === undefined)).toHaveLength(0);
    } finally {
      await dispatcher.stop();
    }
  });

  it("a receiver that always fails gets exactly 6 attempts; the delivery is dead and the alert is raised (audit row and log line)", async () => {
    const world = await createWebhookWorld(db.sql, transport);
    const rx = await receiver((r) => (r.event.type === "message.sent" ? { status: 503 } : { status: 200 }));
    const { webhook } = await createHook(world, rx.url);
    const { webhook: capped } = await createHook(world, rx.url, { max_attempts: 2 });
    const messageId = await world.send();
    const dispatcher = startTestDispatcher(world.deps, transport);
    try {
      await dispatcher.until(() => dispatcher.exhausted.filter((d) => d.messageId === messageId).length === 2);
      const dead = (await deliveriesOf(world, webhook.id, "dead"))[0]!;
      expect(dead).toMatchObject({ state: "dead", attempts: 6, last_status: 503, last_error: "status_503", next_attempt_at: null });
      expect(rx.byId(dead.id)).toHaveLength(6);
      const cappedDead = (await deliveriesOf(world, capped.id, "dead"))[0]!;
      expect(cappedDead.attempts).toBe(2);
      expect(rx.byId(cappedDead.id)).toHaveLength(2);
      const alerts = await world.deps.stores.audit.list({ workspaceId: world.workspaceId, activity: "webhook.delivery_exhausted", messageId: null, includeOperatorSignificant: true, after: null, limit: 10 });
      expect(alerts.map((a) => a.subjectId).sort()).toEqual([webhook.id, capped.id].sort());
      expect(alerts.find((a) => a.subjectId === webhook.id)).toMatchObject({ messageId, details: { delivery_id: dead.id, attempts: 6, last_error: "status_503" } });
      expect(dispatcher.alertLines.filter((l) => l.obj.delivery_id === dead.id)).toEqual([{ obj: expect.objectContaining({ alert: "webhook.delivery_exhausted", webhook_id: webhook.id, attempts: 6 }) as unknown, msg: expect.any(String) as unknown }]);
      const view = (await world.call<WebhookView>(world.admin, "get_webhook", { webhook_id: webhook.id })).body;
      expect(view.health.status).toBe("failing");
      expect(view.recent_dead_deliveries.map((d) => d.id)).toEqual([dead.id]);
      // Later passes never attempt a dead delivery again.
      const passesBefore = rx.requests.length;
      await world.send({ template: "directive" });
      await rx.waitFor((rs) => rs.length >= passesBefore + 2);
      expect(rx.byId(dead.id)).toHaveLength(6);
    } finally {
      await dispatcher.stop();
    }
  });

  it("several dispatchers at once (own pools) deliver every row once", async () => {
    const world = await createWebhookWorld(db.sql, transport);
    const rx = await receiver(() => ({ status: 200 }));
    const { webhook } = await createHook(world, rx.url);
    for (let i = 0; i < 30; i++) await world.send();
    const pools = [db.connect({ max: 3 }), db.connect({ max: 3 }), db.connect({ max: 3 })];
    const worlds = await Promise.all(pools.map((p) => createWebhookWorld(p, transport)));
    const dispatchers = worlds.map((w) => startTestDispatcher(w.deps, transport, { batchSize: 4 }));
    try {
      await rx.waitFor((rs) => rs.filter((r) => r.event.type === "message.sent" && r.event.data.recipient && (r.event.data.recipient as { ai_account_id: string }).ai_account_id === world.recipientId).length >= 30);
      await dispatchers[0]!.until(async () => (await deliveriesOf(world, webhook.id, "delivered")).length === 30);
      const mine = rx.requests.filter((r) => r.event.type === "message.sent" && (r.event.data.recipient as { ai_account_id: string }).ai_account_id === world.recipientId);
      expect(mine).toHaveLength(30);
      expect(new Set(mine.map((r) => r.headers["webhook-id"])).size).toBe(30);
    } finally {
      await Promise.all(dispatchers.map((d) => d.stop()));
    }
  });

  it("deleting a webhook purges its pending outbox, and later sends to that recipient write none", async () => {
    const world = await createWebhookWorld(db.sql, transport);
    const rx = await receiver();
    const { webhook } = await createHook(world, rx.url);
    const { webhook: other } = await createHook(world, rx.url, { filter: { templates: ["directive"] } });
    await world.send();
    await world.send();
    expect(await deliveriesOf(world, webhook.id, "pending")).toHaveLength(2);
    const deleted = await world.call<{ purged_deliveries: number; state: string }>(world.admin, "delete_webhook", { webhook_id: webhook.id });
    expect(deleted.body).toMatchObject({ state: "deleted", purged_deliveries: 2 });
    await world.send();
    await world.send({ template: "directive" });
    const [purged] = await db.sql<{ n: number }[]>`select count(*)::int as n from webhook_outbox where webhook_id = ${webhook.id}`;
    expect(purged?.n).toBe(0);
    const [kept] = await db.sql<{ n: number }[]>`select count(*)::int as n from webhook_outbox where webhook_id = ${other.id}`;
    expect(kept?.n).toBe(1);
    await expect(world.call(world.admin, "get_webhook", { webhook_id: webhook.id })).rejects.toMatchObject({ code: "SVC_RESOURCE_NOT_FOUND" });
    const audit = await world.deps.stores.audit.list({ workspaceId: world.workspaceId, activity: "webhook.deleted", messageId: null, includeOperatorSignificant: true, after: null, limit: 10 });
    expect(audit[0]).toMatchObject({ subjectId: webhook.id, details: { purged_deliveries: 2 } });
  });

  it("a send that queued deliveries wakes the dispatcher over LISTEN/NOTIFY (fallback poll of an hour); a send without a webhook does not notify", async () => {
    const world = await createWebhookWorld(db.sql, transport);
    const rx = await receiver();
    await createHook(world, rx.url);
    // The notification count: one on LISTEN, then one per committed send that queued deliveries.
    let notified = 0;
    let earlier = "";
    const seen: (() => void)[] = [];
    const stopCounting = listenForOutboxDeliveries(db.sql, () => {
      notified++;
      for (const f of seen.splice(0)) f();
    });
    const nextNotification = () => new Promise<void>((r) => seen.push(r));
    try {
      await nextNotification();
      expect(notified).toBe(1);
      const quiet = await createWebhookWorld(db.sql, transport);
      await quiet.send();
      const arrived = nextNotification();
      earlier = await world.send();
      await arrived;
      // Notifications reach a listener in commit order: the send without a webhook sent none.
      expect(notified).toBe(2);
    } finally {
      await stopCounting();
    }
    const dispatcher = startTestDispatcher(world.deps, transport, { pollIntervalMs: 3_600_000, wakeups: (wake) => listenForOutboxDeliveries(db.sql, wake) });
    try {
      // The pass on LISTEN delivers the send queued before the dispatcher started; after it, only a notification can start a pass.
      await rx.waitFor((rs) => rs.some((r) => r.event.type === "message.sent" && r.event.data.message_id === earlier));
      const id = await world.send();
      await rx.waitFor((rs) => rs.some((r) => r.event.type === "message.sent" && r.event.data.message_id === id));
    } finally {
      await dispatcher.stop();
    }
  });
});
