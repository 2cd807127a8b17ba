import { bootstrapWorkspace } from "@agentq/core";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import { createHmac } from "node:crypto";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeService, type ComposedService } from "./compose.ts";
import { createHttpWebhookTransport, createLogger, deriveSecrets } from "@agentq/runtime";

interface Received {
  headers: Record<string, string>;
  body: string;
}

/** A receiver on 127.0.0.1 answering `status`, recording requests, resolving waiters per request. */
async function startReceiver(status = 204) {
  const requests: Received[] = [];
  const waiters: (() => void)[] = [];
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      requests.push({ headers: req.headers as Record<string, string>, body: Buffer.concat(chunks).toString("utf8") });
      res.writeHead(status).end();
      for (const w of waiters.splice(0)) w();
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/in`;
  const waitFor = async (n: number) => {
    while (requests.length < n) await new Promise<void>((r) => waiters.push(r));
  };
  return { url, requests, waitFor, stop: () => new Promise<void>((r) => server.close(() => r())) };
}

/** The Standard Webhooks check, inline: some v1 signature of the header is HMAC-SHA-256(secret, id.timestamp.body). */
function signedWith(secret: string, r: Received): boolean {
  const key = Buffer.from(secret.slice("whsec_".length), "base64");
  const expected = createHmac("sha256", key).update(`${r.headers["webhook-id"]}.${r.headers["webhook-timestamp"]}.${r.body}`).digest("base64");
  return (r.headers["webhook-signature"] ?? "").split(" ").includes(`v1,${expected}`);
}

describe("webhooks through the composed server (REST routes, dispatcher in startBackground)", () => {
  let db: TestSchema;
  let service: ComposedService;
  let background: { stop(): Promise<void> };
  let admin: string;
  let keys = 0;

  beforeAll(async () => {
    db = await createTestSchema({ max: 5 });
    service = composeService({
      sql: db.sql,
      secrets: deriveSecrets("server-webhook-test-master-secret-0123456789"),
      publicBaseUrl: "http://agentq.test",
      logger: createLogger("silent"),
      // Tests send traffic only to 127.0.0.1: loopback is let through by the transport's test-only option.
      webhooks: { transport: createHttpWebhookTransport({ allowLoopbackForTests: true }), dispatch: { pollIntervalMs: 10, retry: { baseMs: 10, factor: 2, maxMs: 50 } } },
    });
    background = service.startBackground();
    admin = (await bootstrapWorkspace(service.deps, { workspaceName: "hooks", email: "owner@hooks.test" })).token;
  });
  afterAll(async () => {
    await background.stop();
    await service.close();
    await db.drop();
  });

  const call = async (token: string, method: string, path: string, body?: unknown, key: string | null = `k-${++keys}`, headers: Record<string, string> = {}) => {
    const res = await service.fetch(
      new Request(`http://agentq.test${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json" }), ...(method === "GET" || key === null ? {} : { "Idempotency-Key": key }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    return { status: res.status, text: await res.clone().text(), body: (await res.json()) as Record<string, any> };
  };

  it("create (probe, 400 with verification_failure_reason, idempotent replay), deliver, list deliveries, patch, rotate, delete", async () => {
    const worker = await call(admin, "POST", "/v1/ai-accounts", { friendly_name: "worker" });
    const sender = await call(admin, "POST", "/v1/ai-accounts", { friendly_name: "sender" });
    const token = (await call(admin, "POST", "/v1/credentials", { ai_account_id: sender.body.id, tier: "operational", scopes: ["send"], name: "sender box" })).body.token as string;
    const rx = await startReceiver();
    try {
      const body = { ai_account_id: worker.body.id, url: rx.url, name: "worker push" };
      expect((await call(admin, "POST", "/v1/webhooks", body, null)).body.error.code).toBe("SVC_IDEMPOTENCY_KEY_REQUIRED");
      const closed = await startReceiver();
      await closed.stop();
      const refused = await call(admin, "POST", "/v1/webhooks", { ...body, url: closed.url });
      expect(refused.status).toBe(400);
      expect(refused.body.error).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { verification_failure_reason: "connection_failed" } });
      const refusedPrivate = await call(admin, "POST", "/v1/webhooks", { ...body, url: "http://10.0.0.1/in" });
      expect(refusedPrivate.body.error).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { verification_failure_reason: "destination_not_public" } });
      expect((await call(token, "GET", "/v1/webhooks")).body.error.code).toBe("SVC_TIER_INSUFFICIENT");

      const created = await call(admin, "POST", "/v1/webhooks", body, "create-1");
      expect(created.status).toBe(201);
      const replay = await call(admin, "POST", "/v1/webhooks", body, "create-1");
      expect(replay.text).toBe(created.text);
      const secret = created.body.signing_secret as string;
      const id = created.body.webhook.id as string;
      expect(rx.requests).toHaveLength(1);
      expect(signedWith(secret, rx.requests[0]!)).toBe(true);

      // The sender's trace context goes on with the delivery (issue 29), as in a claimed envelope.
      const traceparent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01";
      const sent = await call(token, "POST", "/v1/messages/send", { envelope: { recipient: { friendly_name: "worker" }, template: "note" }, payload: { text: "hi" } }, undefined, { traceparent });
      expect(sent.status).toBe(201);
      await rx.waitFor(2);
      const delivery = rx.requests[1]!;
      expect(JSON.parse(delivery.body)).toMatchObject({ type: "message.sent", data: { message_id: sent.body.message_id } });
      expect(delivery.headers["traceparent"]).toBe(traceparent);
      expect(rx.requests[0]!.headers["traceparent"]).toBeUndefined();
      expect(signedWith(secret, delivery)).toBe(true);

      let listed = await call(admin, "GET", `/v1/webhooks/${id}/deliveries`);
      while (listed.body.items[0]?.state !== "delivered") listed = await call(admin, "GET", `/v1/webhooks/${id}/deliveries`);
      expect(listed.body).toMatchObject({ items: [{ webhook_id: id, message_id: sent.body.message_id, state: "delivered", attempts: 1 }], next_cursor: null });

      const rx2 = await startReceiver();
      try {
        const patched = await call(admin, "PATCH", `/v1/webhooks/${id}`, { url: rx2.url, filter: { templates: ["note"] } });
        expect(patched.status).toBe(200);
        expect(patched.body).toMatchObject({ url: rx2.url, filter: { templates: ["note"], min_priority: null } });
        expect(rx2.requests).toHaveLength(1);
        expect(signedWith(secret, rx2.requests[0]!)).toBe(true);
      } finally {
        await rx2.stop();
      }

      const rotated = await call(admin, "POST", `/v1/webhooks/${id}/rotate-signing-key`, { overlap_window: "PT10M" });
      expect(rotated.status).toBe(201);
      expect(rotated.body.webhook.signing_keys.map((k: { state: string }) => k.state)).toEqual(["current", "previous"]);
      const got = await call(admin, "GET", `/v1/webhooks/${id}`);
      expect(got.body).toMatchObject({ id, outbox: { delivered: 1 }, health: { status: "healthy" } });
      expect(JSON.stringify(got.body)).not.toContain((rotated.body.signing_secret as string).slice(6));

      const deleted = await call(admin, "DELETE", `/v1/webhooks/${id}`);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toMatchObject({ id, state: "deleted" });
      expect((await call(admin, "GET", `/v1/webhooks/${id}`)).status).toBe(404);
    } finally {
      await rx.stop();
    }
  });
});
