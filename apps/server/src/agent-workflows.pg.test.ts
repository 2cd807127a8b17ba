import { bootstrapWorkspace } from "@agentq/core";
import { TEST_SECRETS } from "@agentq/core/testing";
import { connectMcpClient, errorCodeOf, serveOnFreePort, structured, type ServedApp } from "@agentq/mcp/testing";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeService, type ComposedService } from "./compose.ts";
import { createLogger } from "@agentq/runtime";

// Issue 31 (agent workflows, DESIGN §2c) over real HTTP on PostgreSQL, REST and MCP alike (the
// SDK client over Streamable HTTP): lease hand-off, reply threads and messages held for a
// person's approval. Tests assert codes, never message text.

type Json = Record<string, any>;

let db: TestSchema;
let service: ComposedService;
let served: ServedApp;
let admin: string;
let counter = 0;

interface Account {
  id: string;
  name: string;
  token: string;
}

async function rest(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
  const res = await fetch(`${served.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json", "Idempotency-Key": `k-${++counter}-${Date.now()}` }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Json };
}

async function newAccount(prefix: string, scopes: string[] = ["send", "get_pending", "ack", "nack"], adminToken = admin): Promise<Account> {
  const name = `${prefix}-${++counter}`;
  const account = await rest(adminToken, "POST", "/v1/ai-accounts", { friendly_name: name });
  expect(account.status).toBe(201);
  const issued = await rest(adminToken, "POST", "/v1/credentials", { ai_account_id: account.body.id, tier: "operational", scopes, name });
  expect(issued.status).toBe(201);
  return { id: account.body.id as string, name, token: issued.body.token as string };
}

const send = (from: Account, to: Account, extra: Json = {}) => rest(from.token, "POST", "/v1/messages/send", { envelope: { recipient: { friendly_name: to.name }, template: "note", ...extra }, payload: { text: "hi" } });
const claim = (by: Account, body: Json = {}) => rest(by.token, "POST", "/v1/messages/get-pending", { max: 10, ...body });
const handOff = (by: Account, messageId: string, leaseId: string, to: string, extra: Json = {}) => rest(by.token, "POST", `/v1/messages/${messageId}/hand-off`, { lease_id: leaseId, to: { friendly_name: to }, ...extra });

/** Sends one message from `from` to `to` and claims it as `to`; the message id and lease. */
async function sentAndClaimed(from: Account, to: Account): Promise<{ id: string; lease: string }> {
  const sent = await send(from, to);
  expect(sent.status).toBe(201);
  const claimed = await claim(to);
  const item = (claimed.body.items as Json[]).find((i) => i.envelope.message_id === sent.body.message_id);
  expect(item).toBeDefined();
  return { id: sent.body.message_id as string, lease: item?.lease.lease_id as string };
}

beforeAll(async () => {
  db = await createTestSchema({ max: 5 });
  service = composeService({ sql: db.sql, secrets: TEST_SECRETS, publicBaseUrl: "http://agentq.test", logger: createLogger("silent"), rateLimiter: "off" });
  served = await serveOnFreePort((request) => service.fetch(request));
  admin = (await bootstrapWorkspace(service.deps, { workspaceName: "workflows", email: "owner@workflows.test" })).token;
});
afterAll(async () => {
  await served?.close();
  await service?.close();
  await db?.drop();
});

describe("hand-off (DESIGN §2c)", () => {
  it("REST: the lease ends, the new recipient alone claims it with its delivery count kept; timeline and audit name both accounts", async () => {
    const [alice, bob, carol] = [await newAccount("alice"), await newAccount("bob"), await newAccount("carol")];
    const m = await sentAndClaimed(alice, bob);
    // Carol long-polls before the hand-off: the hand-off wakes her.
    const waiting = claim(carol, { wait: "PT15S" });
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    const handed = await handOff(bob, m.id, m.lease, carol.name, { note: "carol knows the billing system" });
    expect(handed.status).toBe(200);
    expect(handed.body).toMatchObject({ message_id: m.id, state: "pending", recipient: { ai_account_id: carol.id, friendly_name: carol.name }, delivery_count: 1 });
    const woken = await waiting;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(woken.body.items).toHaveLength(1);
    const item = woken.body.items[0] as Json;
    expect(item.envelope).toMatchObject({ message_id: m.id, delivery_count: 2, recipient: { ai_account_id: carol.id }, sender: { ai_account_id: alice.id } });

    // The former holder's lease is gone, and the message is no longer its.
    expect((await rest(bob.token, "POST", `/v1/messages/${m.id}/ack`, { lease_id: m.lease })).body.error?.code).toBe("SVC_RESOURCE_NOT_FOUND");
    expect((await claim(bob)).body.items).toEqual([]);
    expect((await rest(bob.token, "GET", `/v1/messages/${m.id}`)).status).toBe(404);

    const view = await rest(carol.token, "GET", `/v1/messages/${m.id}`);
    expect(view.body.timeline.map((e: Json) => e.activity)).toEqual(["message.sent", "message.claimed", "message.handed_off", "message.claimed"]);
    const entry = view.body.timeline[2] as Json;
    expect(entry).toMatchObject({ actor_ai_account_id: bob.id, details: { from: { ai_account_id: bob.id, friendly_name: bob.name }, to: { ai_account_id: carol.id, friendly_name: carol.name }, note: "carol knows the billing system" } });
    const audit = await rest(admin, "GET", `/v1/audit-log?message_id=${m.id}&activity=message.handed_off`);
    expect(audit.status).toBe(200);
    expect(audit.body.items).toHaveLength(1);
    expect(JSON.stringify(audit.body.items[0])).toContain(carol.id);
    expect(JSON.stringify(audit.body.items[0])).toContain(bob.id);
    expect((await rest(carol.token, "POST", `/v1/messages/${m.id}/ack`, { lease_id: item.lease.lease_id })).status).toBe(200);
  });

  it("REST: to oneself, to an unknown or revoked name, or to another workspace's account: 404 SVC_RECIPIENT_RESOLUTION_FAILED, and the lease still holds", async () => {
    const [alice, bob, dave] = [await newAccount("alice"), await newAccount("bob"), await newAccount("dave")];
    const otherAdmin = (await bootstrapWorkspace(service.deps, { workspaceName: "elsewhere", email: `owner-${++counter}@elsewhere.test` })).token;
    const stranger = await newAccount("stranger", ["get_pending"], otherAdmin);
    const m = await sentAndClaimed(alice, bob);
    expect((await rest(admin, "POST", `/v1/ai-accounts/${dave.id}/revoke`, {})).status).toBe(200);
    for (const to of [bob.name, "nobody-here", dave.name, stranger.name]) {
      const refused = await handOff(bob, m.id, m.lease, to);
      expect([to, refused.status, refused.body.error?.code]).toEqual([to, 404, "SVC_RECIPIENT_RESOLUTION_FAILED"]);
    }
    expect((await handOff(bob, m.id, "not-the-lease", alice.name)).body.error?.code).toBe("SVC_LEASE_NOT_HELD");
    // Alice is a participant (the sender) but does not hold the message.
    expect((await handOff(alice, m.id, m.lease, bob.name)).body.error?.code).toBe("SVC_RESOURCE_NOT_FOUND");
    expect((await handOff(bob, m.id, m.lease, "", {})).body.error?.code).toBe("SVC_MALFORMED_REQUEST");
    expect((await handOff(bob, m.id, m.lease, alice.name, { note: "x".repeat(1001) })).body.error?.code).toBe("SVC_MALFORMED_REQUEST");
    const noAck = await newAccount("noack", ["get_pending"]);
    expect((await handOff(noAck, m.id, m.lease, alice.name)).body.error?.code).toBe("SVC_SCOPE_INSUFFICIENT");
    expect((await rest(bob.token, "POST", `/v1/messages/${m.id}/ack`, { lease_id: m.lease })).status).toBe(200);
    // Acknowledged: a hand-off now is refused as ack would be.
    expect((await handOff(bob, m.id, m.lease, alice.name)).body.error?.code).toBe("SVC_LEASE_NOT_HELD");
  });

  it("a hand-off racing an ack, a nack and another hand-off of the same lease: exactly one wins, and the message has one holder", async () => {
    const [alice, bob, carol, erin] = [await newAccount("alice"), await newAccount("bob"), await newAccount("carol"), await newAccount("erin")];
    for (let round = 0; round < 5; round++) {
      const m = await sentAndClaimed(alice, bob);
      const results = await Promise.all([
        handOff(bob, m.id, m.lease, carol.name),
        handOff(bob, m.id, m.lease, erin.name),
        rest(bob.token, "POST", `/v1/messages/${m.id}/ack`, { lease_id: m.lease }),
        rest(bob.token, "POST", `/v1/messages/${m.id}/nack`, { lease_id: m.lease }),
      ]);
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      const [row] = await db.sql<{ recipient_id: string; state: string; delivery_count: number }[]>`select recipient_id, state, delivery_count from messages where id = ${m.id}`;
      const winner = results.findIndex((r) => r.status === 200);
      const expected = [
        { recipient_id: carol.id, state: "pending" },
        { recipient_id: erin.id, state: "pending" },
        { recipient_id: bob.id, state: "acknowledged" },
        { recipient_id: bob.id, state: "pending" },
      ][winner];
      expect(row).toMatchObject({ ...expected, delivery_count: 1 });
    }
  });

  it("MCP: hand_off moves the message as REST does and fails with the same codes", async () => {
    const [alice, bob, carol] = [await newAccount("alice"), await newAccount("bob"), await newAccount("carol")];
    const m = await sentAndClaimed(alice, bob);
    const client = await connectMcpClient(served.url, `Bearer ${bob.token}`);
    try {
      expect(errorCodeOf(await client.callTool({ name: "hand_off", arguments: { message_id: m.id, lease_id: m.lease, to: { friendly_name: bob.name } } }))).toBe("SVC_RECIPIENT_RESOLUTION_FAILED");
      const done = await client.callTool({ name: "hand_off", arguments: { message_id: m.id, lease_id: m.lease, to: { friendly_name: carol.name }, note: "over to you" } });
      expect(errorCodeOf(done)).toBeUndefined();
      expect(structured(done)).toMatchObject({ message_id: m.id, state: "pending", recipient: { friendly_name: carol.name }, delivery_count: 1 });
      expect(errorCodeOf(await client.callTool({ name: "hand_off", arguments: { message_id: m.id, lease_id: m.lease, to: { friendly_name: carol.name } } }))).toBe("SVC_RESOURCE_NOT_FOUND");
    } finally {
      await client.close();
    }
    expect((await claim(carol)).body.items.map((i: Json) => i.envelope.message_id)).toEqual([m.id]);
  });
});
