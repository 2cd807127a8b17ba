import type { AccessScenarioWorkspace, InMemoryWorld } from "@agentq/core/testing";
import type { Hono } from "hono";
import { beforeEach, describe, expect, it } from "vitest";
import type { RestEnv } from "./rest-env.ts";
import { call } from "./testing/call.ts";
import type { CallResult } from "./testing/call.ts";
import { bootstrap, createAgent, createInMemoryRestApp, directiveTo } from "./testing/rest-scenario.ts";
import type { RestAgent } from "./testing/rest-scenario.ts";

let world: InMemoryWorld;
let app: Hono<RestEnv>;
let logger: ReturnType<typeof createInMemoryRestApp>["logger"];
let adminA: AccessScenarioWorkspace;
let adminB: AccessScenarioWorkspace;
let alice: RestAgent;
let bob: RestAgent;
let carol: RestAgent;
let keys = 0;

beforeEach(async () => {
  ({ world, app, logger } = createInMemoryRestApp());
  adminA = await bootstrap(world, "alpha");
  adminB = await bootstrap(world, "beta");
  alice = await createAgent(app, adminA, "alice");
  bob = await createAgent(app, adminA, "bob");
  carol = await createAgent(app, adminB, "carol");
});

function send(from: RestAgent, to: string, key = `key-${++keys}`, extra: Record<string, unknown> = {}): Promise<CallResult> {
  return call(app, "POST", "/v1/messages/send", { authorization: from.authorization, key, body: directiveTo(to, extra) });
}

async function claimOne(agent: RestAgent, visibility = "PT30S"): Promise<{ messageId: string; leaseId: string; item: any }> {
  const res = await call(app, "POST", "/v1/messages/get-pending", { authorization: agent.authorization, body: { max: 1, visibility_timeout: visibility } });
  expect(res.status).toBe(200);
  expect(res.body.items).toHaveLength(1);
  const item = res.body.items[0];
  return { messageId: item.envelope.message_id, leaseId: item.lease.lease_id, item };
}

describe("messaging routes end to end", () => {
  it("send -> get-pending -> ack between two accounts of one workspace", async () => {
    const sent = await send(alice, "bob", "k-1", { priority: "high", correlation_id: "c-1" });
    expect(sent.status).toBe(201);
    expect(sent.body).toEqual(expect.objectContaining({ state: "pending", recipient: { ai_account_id: bob.id, friendly_name: "bob" } }));
    const messageId = sent.body.message_id as string;

    const { leaseId, item } = await claimOne(bob);
    expect(item.envelope).toEqual(expect.objectContaining({ message_id: messageId, sender: { ai_account_id: alice.id, friendly_name: "alice" }, template: "directive", priority: "high", correlation_id: "c-1", delivery_count: 1 }));
    expect(item.payload).toEqual({ directive_kind: "task", summary: "Do it", instructions: "All of it." });

    const ack = await call(app, "POST", `/v1/messages/${messageId}/ack`, { authorization: bob.authorization, body: { lease_id: leaseId, outcome_summary: "done" } });
    expect(ack.status).toBe(200);
    expect(ack.body).toEqual(expect.objectContaining({ message_id: messageId, state: "acknowledged" }));
    const again = await call(app, "POST", `/v1/messages/${messageId}/ack`, { authorization: bob.authorization, body: { lease_id: leaseId, outcome_summary: "done" } });
    expect(again.status).toBe(200);
    expect(again.body).toEqual(ack.body);

    for (const agent of [alice, bob]) {
      const view = await call(app, "GET", `/v1/messages/${messageId}`, { authorization: agent.authorization });
      expect(view.status).toBe(200);
      expect(view.body.state).toBe("acknowledged");
      expect(view.body.timeline.map((t: { activity: string }) => t.activity)).toEqual(["message.sent", "message.claimed", "message.acknowledged"]);
    }
    const sentList = await call(app, "GET", "/v1/messages?role=sent&limit=10", { authorization: alice.authorization });
    expect(sentList.body.items.map((m: any) => m.envelope.message_id)).toEqual([messageId]);
    expect((await call(app, "GET", "/v1/messages?role=received", { authorization: alice.authorization })).body.items).toEqual([]);
    expect((await call(app, "POST", "/v1/messages/get-pending", { authorization: bob.authorization, body: {} })).body.items).toEqual([]);
    expect(logger.entries).toEqual([]);
  });

  it("extends a lease, nacks, and redelivers", async () => {
    const messageId = (await send(alice, "bob")).body.message_id as string;
    const { leaseId } = await claimOne(bob);
    const extended = await call(app, "POST", `/v1/messages/${messageId}/extend_lease`, { authorization: bob.authorization, body: { lease_id: leaseId, visibility_timeout: "PT60S" } });
    expect(extended.status).toBe(200);
    expect(extended.body.extensions).toBe(1);
    const tooSoon = await call(app, "POST", `/v1/messages/${messageId}/extend_lease`, { authorization: bob.authorization, body: { lease_id: leaseId, visibility_timeout: "PT60S" } });
    expect(tooSoon.status).toBe(429);
    expect(tooSoon.body.error.code).toBe("SVC_EXTEND_RATE_LIMITED");
    expect(Number(tooSoon.headers.get("retry-after"))).toBeGreaterThan(0);

    const nacked = await call(app, "POST", `/v1/messages/${messageId}/nack`, { authorization: bob.authorization, body: { lease_id: leaseId, reason: "later" } });
    expect(nacked.status).toBe(200);
    expect(nacked.body.state).toBe("pending");
    const second = await claimOne(bob);
    expect(second.messageId).toBe(messageId);
    expect(second.item.envelope.delivery_count).toBe(2);
    const stale = await call(app, "POST", `/v1/messages/${messageId}/ack`, { authorization: bob.authorization, body: { lease_id: leaseId } });
    expect(stale.status).toBe(409);
    expect(stale.body.error.code).toBe("SVC_LEASE_NOT_HELD");
  });

  it("validates without sending and lists recipients and templates", async () => {
    const valid = await call(app, "POST", "/v1/messages/validate", { authorization: alice.authorization, body: directiveTo("bob") });
    expect(valid.status).toBe(200);
    expect(valid.body.valid).toBe(true);
    expect((await call(app, "POST", "/v1/messages/validate", { authorization: alice.authorization, body: directiveTo("nobody") })).body.error.code).toBe("SVC_RECIPIENT_RESOLUTION_FAILED");
    expect((await call(app, "POST", "/v1/messages/get-pending", { authorization: bob.authorization, body: {} })).body.items).toEqual([]);

    const recipients = await call(app, "GET", "/v1/recipients", { authorization: alice.authorization });
    expect(recipients.body.items.map((r: { friendly_name: string }) => r.friendly_name)).toEqual(expect.arrayContaining(["alice", "bob"]));
    expect(recipients.text).not.toContain("carol");
    const templates = await call(app, "GET", "/v1/templates", { authorization: alice.authorization });
    expect(templates.body.items.map((t: { name: string }) => t.name)).toContain("directive");
    const directive = await call(app, "GET", "/v1/templates/directive", { authorization: alice.authorization });
    expect(directive.status).toBe(200);
    expect(Object.keys(directive.body.schema.properties as object).sort()).toEqual(["directive_kind", "instructions", "summary"]);
    expect((await call(app, "GET", "/v1/templates/nope", { authorization: alice.authorization })).status).toBe(404);
  });

  it("requires Idempotency-Key on send, replays byte for byte, and refuses a different body with 409", async () => {
    expect((await call(app, "POST", "/v1/messages/send", { authorization: alice.authorization, body: directiveTo("bob") })).body.error.code).toBe("SVC_IDEMPOTENCY_KEY_REQUIRED");
    const first = await send(alice, "bob", "same-key");
    const replay = await call(app, "POST", "/v1/messages/send", { authorization: alice.authorization, key: "same-key", body: { payload: { instructions: "All of it.", summary: "Do it", directive_kind: "task" }, envelope: { template: "directive", recipient: { friendly_name: "bob" } } } });
    expect(replay.status).toBe(first.status);
    expect(replay.text).toBe(first.text);
    expect(replay.headers.get("x-request-id")).not.toBe(first.headers.get("x-request-id"));
    const conflict = await send(alice, "bob", "same-key", { priority: "urgent" });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe("SVC_IDEMPOTENCY_CONFLICT");
    expect(conflict.body.error.details.original_request_id).toBe(first.headers.get("x-request-id"));
    // One message only.
    expect((await call(app, "GET", "/v1/messages?role=sent", { authorization: alice.authorization })).body.items).toHaveLength(1);
    // Keys are per account: bob may use the same key for his own send.
    expect((await send(bob, "alice", "same-key")).status).toBe(201);
  });

  it("refuses every messaging route without its scope, and administrative routes below the tier", async () => {
    const bare = await createAgent(app, adminA, "bare", []);
    const messageId = (await send(alice, "bob")).body.message_id as string;
    const { leaseId } = await claimOne(bob);
    const gated: [string, string, unknown][] = [
      ["POST", "/v1/messages/send", directiveTo("bob")],
      ["POST", "/v1/messages/validate", directiveTo("bob")],
      ["POST", "/v1/messages/get-pending", {}],
      ["POST", `/v1/messages/${messageId}/ack`, { lease_id: leaseId }],
      ["POST", `/v1/messages/${messageId}/nack`, { lease_id: leaseId }],
      ["POST", `/v1/messages/${messageId}/extend_lease`, { lease_id: leaseId, visibility_timeout: "PT30S" }],
      ["GET", "/v1/recipients", undefined],
      ["GET", "/v1/templates", undefined],
      ["GET", "/v1/templates/directive", undefined],
    ];
    for (const [method, path, body] of gated) {
      const res = await call(app, method, path, { authorization: bare.authorization, key: "k", ...(body === undefined ? {} : { body }) });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code, `${method} ${path}`).toBe("SVC_SCOPE_INSUFFICIENT");
    }
    // The administrative bootstrap credential has no messaging scope either.
    expect((await send({ ...alice, authorization: adminA.authorization }, "bob")).body.error.code).toBe("SVC_SCOPE_INSUFFICIENT");
    // Reads of one's own messages need no scope.
    expect((await call(app, "GET", "/v1/messages", { authorization: bare.authorization })).status).toBe(200);
    for (const [method, path] of [["GET", "/v1/dead-letters"], ["POST", `/v1/dead-letters/${messageId}/release`], ["POST", `/v1/dead-letters/${messageId}/purge`]] as const) {
      const res = await call(app, method, path, { authorization: alice.authorization });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code).toBe("SVC_TIER_INSUFFICIENT");
    }
    expect((await call(app, "GET", "/v1/messages")).body.error.code).toBe("SVC_UNAUTHENTICATED");
  });

  it("dead-letters after max deliveries; an administrator lists, releases and purges", async () => {
    const first = (await send(alice, "bob")).body.message_id as string;
    const second = (await send(alice, "bob")).body.message_id as string;
    for (let i = 0; i < 10; i++) {
      const res = await call(app, "POST", "/v1/messages/get-pending", { authorization: bob.authorization, body: { max: 2, visibility_timeout: "PT10S" } });
      expect(res.body.items).toHaveLength(2);
      world.clock.advance(11_000);
    }
    expect((await call(app, "POST", "/v1/messages/get-pending", { authorization: bob.authorization, body: {} })).body.items).toEqual([]);
    const dead = await call(app, "GET", "/v1/dead-letters", { authorization: adminA.authorization });
    expect(dead.body.items.map((d: any) => d.envelope.message_id).sort()).toEqual([first, second].sort());
    expect((await call(app, "GET", "/v1/dead-letters", { authorization: adminB.authorization })).body.items).toEqual([]);
    expect([403, 404]).toContain((await call(app, "POST", `/v1/dead-letters/${first}/release`, { authorization: adminB.authorization })).status);
    expect([403, 404]).toContain((await call(app, "POST", `/v1/dead-letters/${first}/purge`, { authorization: adminB.authorization })).status);

    const released = await call(app, "POST", `/v1/dead-letters/${first}/release`, { authorization: adminA.authorization });
    expect(released.status).toBe(200);
    expect(released.body.state).toBe("pending");
    const { messageId, leaseId } = await claimOne(bob);
    expect(messageId).toBe(first);
    expect((await call(app, "POST", `/v1/messages/${first}/ack`, { authorization: bob.authorization, body: { lease_id: leaseId } })).status).toBe(200);

    const purged = await call(app, "POST", `/v1/dead-letters/${second}/purge`, { authorization: adminA.authorization });
    expect(purged.status).toBe(200);
    expect(purged.body).toEqual({ message_id: second, purged: true });
    expect((await call(app, "GET", "/v1/dead-letters", { authorization: adminA.authorization })).body.items).toEqual([]);
    expect((await call(app, "POST", `/v1/dead-letters/${second}/purge`, { authorization: adminA.authorization })).status).toBe(404);
  });

  it("isolates workspaces: every route refuses another workspace's records with 404 or 403, never data", async () => {
    const messageId = (await send(alice, "bob")).body.message_id as string;
    const { leaseId } = await claimOne(bob);
    const routes: [string, string, unknown][] = [
      ["GET", `/v1/messages/${messageId}`, undefined],
      ["POST", `/v1/messages/${messageId}/ack`, { lease_id: leaseId }],
      ["POST", `/v1/messages/${messageId}/nack`, { lease_id: leaseId }],
      ["POST", `/v1/messages/${messageId}/extend_lease`, { lease_id: leaseId, visibility_timeout: "PT30S" }],
      ["POST", "/v1/messages/send", directiveTo("bob")],
      ["POST", "/v1/messages/validate", directiveTo("bob")],
    ];
    for (const [method, path, body] of routes) {
      const res = await call(app, method, path, { authorization: carol.authorization, key: `iso-${path}`, ...(body === undefined ? {} : { body }) });
      expect([403, 404], `${method} ${path}: ${res.text}`).toContain(res.status);
      expect(res.text).not.toMatch(/alice|bob|Do it/);
    }
    for (const path of ["/v1/messages", "/v1/recipients"]) {
      const res = await call(app, "GET", path, { authorization: carol.authorization });
      expect(res.status).toBe(200);
      expect(res.text).not.toMatch(/alice|bob/);
    }
    expect((await call(app, "POST", "/v1/messages/get-pending", { authorization: carol.authorization, body: { max: 100 } })).body.items).toEqual([]);
    // Bob's lease is untouched by carol's attempts.
    expect((await call(app, "POST", `/v1/messages/${messageId}/ack`, { authorization: bob.authorization, body: { lease_id: leaseId } })).status).toBe(200);
  });
});
