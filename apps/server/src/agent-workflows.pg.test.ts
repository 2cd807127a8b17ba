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

describe("reply threads (DESIGN §2c)", () => {
  const reply = (from: Account, to: Account, replyTo: string) => send(from, to, { reply_to: replyTo });

  it("REST: a reply carries in_reply_to and the root's thread_id, and is claimed through get_pending {thread_id} by the agent waiting for it, alone", async () => {
    const [alice, bob, carol] = [await newAccount("alice"), await newAccount("bob"), await newAccount("carol")];
    const root = await send(alice, bob);
    expect(root.status).toBe(201);
    const rootId = root.body.message_id as string;
    expect(root.body.thread_id).toBe(rootId);
    // Something else waits for Alice: the thread's long poll must not take it.
    expect((await send(carol, alice)).status).toBe(201);

    const asked = (await claim(bob)).body.items as Json[];
    expect(asked.map((i) => i.envelope)).toEqual([expect.objectContaining({ message_id: rootId, in_reply_to: null, thread_id: rootId })]);

    // Alice waits for the answer on the thread; Bob answers.
    const waiting = claim(alice, { thread_id: rootId, wait: "PT15S" });
    await new Promise((r) => setTimeout(r, 200));
    const started = Date.now();
    const answered = await reply(bob, alice, rootId);
    expect(answered.status).toBe(201);
    expect(answered.body.thread_id).toBe(rootId);
    const woken = await waiting;
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(woken.status).toBe(200);
    expect((woken.body.items as Json[]).map((i) => i.envelope)).toEqual([
      expect.objectContaining({ message_id: answered.body.message_id, in_reply_to: rootId, thread_id: rootId, sender: { ai_account_id: bob.id, friendly_name: bob.name } }),
    ]);
    // Nothing more in the thread for Alice; Carol's message is still hers to claim.
    expect((await claim(alice, { thread_id: rootId })).body.items).toEqual([]);
    expect((await claim(alice)).body.items.map((i: Json) => i.envelope.sender.friendly_name)).toEqual([carol.name]);

    // A reply to the reply stays in the root's thread.
    const again = await reply(alice, bob, answered.body.message_id as string);
    expect(again.body.thread_id).toBe(rootId);
    const thread = await rest(bob.token, "GET", `/v1/threads/${rootId}`);
    expect(thread.status).toBe(200);
    expect(thread.body.thread_id).toBe(rootId);
    expect((thread.body.items as Json[]).map((i) => [i.envelope.message_id, i.envelope.in_reply_to])).toEqual([
      [rootId, null],
      [answered.body.message_id, rootId],
      [again.body.message_id, answered.body.message_id],
    ]);
    // Paged, oldest first.
    const first = await rest(alice.token, "GET", `/v1/threads/${rootId}?limit=2`);
    expect(first.body.items).toHaveLength(2);
    const rest2 = await rest(alice.token, "GET", `/v1/threads/${rootId}?limit=2&cursor=${encodeURIComponent(first.body.next_cursor as string)}`);
    expect(rest2.body.items.map((i: Json) => i.envelope.message_id)).toEqual([again.body.message_id]);
    expect(rest2.body.next_cursor).toBeNull();
    // Carol is in none of the thread's messages: for her it does not exist.
    expect((await rest(carol.token, "GET", `/v1/threads/${rootId}`)).body.error?.code).toBe("SVC_RESOURCE_NOT_FOUND");
    expect((await claim(carol, { thread_id: rootId })).body.error?.code).toBe("SVC_RESOURCE_NOT_FOUND");
    // Nor may she reply to a message she neither sent nor received.
    expect((await reply(carol, alice, rootId)).body.error?.code).toBe("SVC_RESOURCE_NOT_FOUND");
    // The message view and the audit row name the thread.
    const view = await rest(alice.token, "GET", `/v1/messages/${answered.body.message_id as string}`);
    expect(view.body.envelope).toMatchObject({ in_reply_to: rootId, thread_id: rootId });
    expect(view.body.timeline[0]).toMatchObject({ activity: "message.sent", details: { in_reply_to: rootId, thread_id: rootId } });
  });

  it("another workspace's thread or message is 404 (get_thread, get_pending, reply_to), as an unknown one is", async () => {
    const [alice, bob] = [await newAccount("alice"), await newAccount("bob")];
    const root = (await send(alice, bob)).body.message_id as string;
    const otherAdmin = (await bootstrapWorkspace(service.deps, { workspaceName: "elsewhere", email: `owner-${++counter}@elsewhere.test` })).token;
    const [mallory, trent] = [await newAccount("mallory", undefined, otherAdmin), await newAccount("trent", undefined, otherAdmin)];
    for (const id of [root, "01JZZZZZZZZZZZZZZZZZZZZZZZ"]) {
      const read = await rest(mallory.token, "GET", `/v1/threads/${id}`);
      expect([read.status, read.body.error?.code]).toEqual([404, "SVC_RESOURCE_NOT_FOUND"]);
      const polled = await claim(mallory, { thread_id: id });
      expect([polled.status, polled.body.error?.code]).toEqual([404, "SVC_RESOURCE_NOT_FOUND"]);
      const replied = await reply(mallory, trent, id);
      expect([replied.status, replied.body.error?.code]).toEqual([404, "SVC_RESOURCE_NOT_FOUND"]);
      expect(JSON.stringify(read.body) + JSON.stringify(replied.body)).not.toContain(alice.id);
    }
    // Nothing was sent in the other workspace.
    expect((await claim(trent)).body.items).toEqual([]);
  });

  it("hostile thread and reply ids get SVC_ codes, never a 5xx", async () => {
    const [alice, bob] = [await newAccount("alice"), await newAccount("bob")];
    const cases: [string, Promise<{ status: number; body: Json }>][] = [
      ["path not a ULID", rest(alice.token, "GET", "/v1/threads/not-a-ulid")],
      ["path too long", rest(alice.token, "GET", `/v1/threads/${"0".repeat(65)}`)],
      ["path NUL", rest(alice.token, "GET", "/v1/threads/%00")],
      ["path lone surrogate", rest(alice.token, "GET", "/v1/threads/%ED%A0%80")],
      ["path traversal", rest(alice.token, "GET", "/v1/threads/..%2F..%2Fmessages")],
      ["bad limit", rest(alice.token, "GET", "/v1/threads/01JZZZZZZZZZZZZZZZZZZZZZZZ?limit=x")],
      ["forged cursor", rest(alice.token, "GET", "/v1/threads/01JZZZZZZZZZZZZZZZZZZZZZZZ?cursor=abc")],
      ["get_pending number", claim(alice, { thread_id: 7 })],
      ["get_pending object", claim(alice, { thread_id: { $ne: null } })],
      ["get_pending NUL", claim(alice, { thread_id: "\u0000" })],
      ["get_pending too long", claim(alice, { thread_id: "0".repeat(10_000) })],
      ["reply_to number", send(alice, bob, { reply_to: 1 })],
      ["reply_to array", send(alice, bob, { reply_to: ["01JZZZZZZZZZZZZZZZZZZZZZZZ"] })],
      ["reply_to lone surrogate", send(alice, bob, { reply_to: "\ud800" })],
      ["reply_to too long", send(alice, bob, { reply_to: "0".repeat(100_000) })],
      ["reply_to not a ULID", send(alice, bob, { reply_to: "' or 1=1 --" })],
    ];
    for (const [label, call] of cases) {
      const r = await call;
      expect([label, r.status < 500, String(r.body.error?.code ?? "")]).toEqual([label, true, expect.stringMatching(/^SVC_/)]);
    }
    // Nothing was sent by the refused replies.
    expect((await claim(bob)).body.items).toEqual([]);
  });

  it("MCP: send takes reply_to, get_thread lists the thread, get_pending takes thread_id", async () => {
    const [alice, bob] = [await newAccount("alice"), await newAccount("bob")];
    const aliceMcp = await connectMcpClient(served.url, `Bearer ${alice.token}`);
    const bobMcp = await connectMcpClient(served.url, `Bearer ${bob.token}`);
    try {
      const root = structured(await aliceMcp.callTool({ name: "send", arguments: { recipient: { friendly_name: bob.name }, template: "note", payload: { text: "question" } } })) as Json;
      expect(root.thread_id).toBe(root.message_id);
      const sent = await bobMcp.callTool({ name: "send", arguments: { recipient: { friendly_name: alice.name }, template: "note", reply_to: root.message_id, payload: { text: "answer" } } });
      expect(errorCodeOf(sent)).toBeUndefined();
      const claimed = structured(await aliceMcp.callTool({ name: "get_pending", arguments: { thread_id: root.message_id } })) as Json;
      expect(claimed.items.map((i: Json) => [i.envelope.in_reply_to, i.envelope.thread_id])).toEqual([[root.message_id, root.message_id]]);
      const thread = structured(await bobMcp.callTool({ name: "get_thread", arguments: { thread_id: root.message_id } })) as Json;
      expect(thread.items.map((i: Json) => i.envelope.message_id)).toEqual([root.message_id, (structured(sent) as Json).message_id]);
      expect(errorCodeOf(await bobMcp.callTool({ name: "send", arguments: { recipient: { friendly_name: alice.name }, template: "note", reply_to: "01JZZZZZZZZZZZZZZZZZZZZZZZ", payload: { text: "x" } } }))).toBe("SVC_RESOURCE_NOT_FOUND");
      expect(errorCodeOf(await bobMcp.callTool({ name: "get_thread", arguments: { thread_id: "01JZZZZZZZZZZZZZZZZZZZZZZZ" } }))).toBe("SVC_RESOURCE_NOT_FOUND");
    } finally {
      await aliceMcp.close();
      await bobMcp.close();
    }
  });
});

describe("held for approval (DESIGN §2c)", () => {
  /** An administrative credential with `scopes` (default: approve_messages), on a new account. */
  async function approverCredential(scopes: string[] = ["approve_messages"], adminToken = admin): Promise<string> {
    const name = `approver-${++counter}`;
    const account = await rest(adminToken, "POST", "/v1/ai-accounts", { friendly_name: name });
    const issued = await rest(adminToken, "POST", "/v1/credentials", { ai_account_id: account.body.id, tier: "administrative", scopes, name });
    expect(issued.status).toBe(201);
    return issued.body.token as string;
  }
  const publishApproval = (holds: Json, adminToken = admin) => rest(adminToken, "POST", "/v1/policies", { name: `hold-${++counter}`, body: "A person approves these.", kind: "approval", ...holds });
  const approve = (token: string, id: string) => rest(token, "POST", `/v1/messages/${id}/approve`, {});
  const reject = (token: string, id: string, reason?: string) => rest(token, "POST", `/v1/messages/${id}/reject`, reason === undefined ? {} : { reason });

  it("REST: a matching send waits (201 held_for_approval, invisible to get_pending), validate says so; an approval delivers it, a reject ends it; each step in the timeline and the audit log", async () => {
    const [alice, bob, carol] = [await newAccount("alice", ["send", "validate", "get_pending", "ack"]), await newAccount("bob"), await newAccount("carol")];
    const approver = await approverCredential();
    const policy = await publishApproval({ recipients: [bob.name], priorities: ["normal", "high"] });
    expect(policy.status).toBe(201);
    expect(policy.body).toMatchObject({ kind: "approval", required: false, holds: { recipients: [bob.name], priorities: ["normal", "high"], templates: null, senders: null, require_step_up: false } });

    const checked = await rest(alice.token, "POST", "/v1/messages/validate", { envelope: { recipient: { friendly_name: bob.name }, template: "note" }, payload: { text: "hi" } });
    expect(checked.body).toMatchObject({ valid: true, held_for_approval: true, approval: { policy_id: policy.body.id, policy_name: policy.body.name } });
    const notHeld = await rest(alice.token, "POST", "/v1/messages/validate", { envelope: { recipient: { friendly_name: bob.name }, template: "note", priority: "low" }, payload: { text: "hi" } });
    expect(notHeld.body).toMatchObject({ valid: true, held_for_approval: false });

    // Bob has a webhook: a held send queues no delivery; its approval does.
    await db.sql`
      insert into webhooks (workspace_id, id, ai_account_id, url, name, state, created_at)
      select workspace_id, agentq_ulid(), id, 'https://example.test/hook', 'bob-hook', 'active', now() from ai_accounts where id = ${bob.id}`;
    const outbox = async (messageId: string) => (await db.sql<{ n: number }[]>`select count(*)::int as n from webhook_outbox where message_id = ${messageId}`)[0]?.n;

    const held = await send(alice, bob);
    expect(held.status).toBe(201);
    expect(held.body).toMatchObject({ state: "held_for_approval", approval: { policy_id: policy.body.id, policy_name: policy.body.name } });
    const id = held.body.message_id as string;
    expect(await outbox(id)).toBe(0);
    // Not matching (another recipient, or a low priority): delivered as before.
    expect((await send(alice, carol)).body.state).toBe("pending");
    const low = await send(alice, bob, { priority: "low" });
    expect(low.body.state).toBe("pending");

    // Bob cannot claim it, even waiting.
    expect((await claim(bob, { wait: "PT1S" })).body.items.map((i: Json) => i.envelope.message_id)).toEqual([low.body.message_id]);
    const view = await rest(alice.token, "GET", `/v1/messages/${id}`);
    expect(view.body).toMatchObject({ state: "held_for_approval", approval: { policy_id: policy.body.id, policy_name: policy.body.name, require_step_up: false, approvers: expect.stringContaining("approve_messages") } });

    // The waiting list, with the payload to decide on.
    const waiting = await rest(approver, "GET", "/v1/approvals");
    expect(waiting.status).toBe(200);
    expect(waiting.body.items.map((i: Json) => [i.envelope.message_id, i.payload, i.state])).toEqual([[id, { text: "hi" }, "held_for_approval"]]);
    expect((await rest(approver, "GET", `/v1/approvals/${id}`)).body).toMatchObject({ envelope: { message_id: id }, payload: { text: "hi" } });
    // Not for operational credentials, nor an administrative one without the scope.
    expect((await rest(alice.token, "GET", "/v1/approvals")).body.error?.code).toBe("SVC_TIER_INSUFFICIENT");
    expect((await approve(alice.token, id)).body.error?.code).toBe("SVC_TIER_INSUFFICIENT");
    expect((await approve(await approverCredential(["manage_webhooks"]), id)).body.error?.code).toBe("SVC_SCOPE_INSUFFICIENT");

    // Bob waits; the approval wakes him with the message.
    const waitingBob = claim(bob, { wait: "PT15S" });
    await new Promise((r) => setTimeout(r, 200));
    const approved = await approve(approver, id);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ message_id: id, state: "pending" });
    const woken = await waitingBob;
    expect(woken.body.items.map((i: Json) => i.envelope.message_id)).toEqual([id]);
    expect(await outbox(id)).toBe(1);
    expect((await approve(approver, id)).body.error).toMatchObject({ code: "SVC_RESOURCE_CONFLICT", details: { reason: "not_held_for_approval" } });
    expect((await rest(approver, "GET", "/v1/approvals")).body.items).toEqual([]);
    const approvedView = await rest(bob.token, "GET", `/v1/messages/${id}`);
    expect(approvedView.body.timeline.map((e: Json) => e.activity)).toEqual(["message.sent", "message.held_for_approval", "message.approved", "message.claimed"]);

    // A reject: gone for good.
    const second = (await send(alice, bob)).body.message_id as string;
    const rejected = await reject(approver, second, "not today");
    expect(rejected.body).toMatchObject({ message_id: second, state: "rejected" });
    expect((await approve(approver, second)).body.error?.code).toBe("SVC_RESOURCE_CONFLICT");
    expect((await claim(bob)).body.items).toEqual([]);
    const rejectedView = await rest(alice.token, "GET", `/v1/messages/${second}`);
    expect(rejectedView.body.state).toBe("rejected");
    expect(await outbox(second)).toBe(0);
    expect(rejectedView.body.timeline.map((e: Json) => e.activity)).toEqual(["message.sent", "message.held_for_approval", "message.rejected"]);
    expect(rejectedView.body.timeline[2].details).toMatchObject({ reason: "not today", policy_id: policy.body.id });
    const audit = await rest(admin, "GET", `/v1/audit-log?message_id=${second}`);
    expect(audit.body.items.map((r: Json) => r.activity).sort()).toEqual(["message.held_for_approval", "message.rejected", "message.sent"]);

    // A later version of kind acknowledgement ends the hold for later sends.
    expect((await rest(admin, "POST", "/v1/policies", { name: policy.body.name, body: "No more holding." })).status).toBe(201);
    expect((await send(alice, bob)).body.state).toBe("pending");
  });

  it("expiry applies while a message waits; another workspace's approver sees and decides nothing; hostile input gets SVC_ codes", async () => {
    const [alice, bob] = [await newAccount("alice"), await newAccount("bob")];
    const approver = await approverCredential();
    expect((await publishApproval({ senders: [alice.name] })).status).toBe(201);
    const brief = (await send(alice, bob, { ttl: "PT1S" })).body;
    expect(brief.state).toBe("held_for_approval");
    const kept = (await send(alice, bob)).body.message_id as string;
    await new Promise((r) => setTimeout(r, 1_300));
    expect((await approve(approver, brief.message_id as string)).body.error?.code).toBe("SVC_EXPIRED");
    expect((await rest(approver, "GET", "/v1/approvals")).body.items.map((i: Json) => i.envelope.message_id)).not.toContain(brief.message_id);
    expect((await rest(alice.token, "GET", `/v1/messages/${brief.message_id as string}`)).body.state).toBe("expired");

    const otherAdmin = (await bootstrapWorkspace(service.deps, { workspaceName: "elsewhere", email: `owner-${++counter}@elsewhere.test` })).token;
    const stranger = await approverCredential(["approve_messages"], otherAdmin);
    expect((await rest(stranger, "GET", "/v1/approvals")).body.items).toEqual([]);
    for (const r of [await approve(stranger, kept), await reject(stranger, kept), await rest(stranger, "GET", `/v1/approvals/${kept}`)]) expect([r.status, r.body.error?.code]).toEqual([404, "SVC_RESOURCE_NOT_FOUND"]);
    // A message no policy held is not an approval.
    const plain = (await send(bob, alice)).body.message_id as string;
    expect((await approve(approver, plain)).body.error?.code).toBe("SVC_RESOURCE_NOT_FOUND");

    const hostile: [string, Promise<{ status: number; body: Json }>][] = [
      ["no dimension", publishApproval({})],
      ["empty list", publishApproval({ templates: [] })],
      ["too many", publishApproval({ recipients: Array.from({ length: 51 }, (_, i) => `r${i}`) })],
      ["unknown priority", publishApproval({ priorities: ["urgent", "whenever"] })],
      ["NUL name", publishApproval({ senders: ["a\u0000b"] })],
      ["required approval", publishApproval({ templates: ["note"], required: true })],
      ["dimension on acknowledgement", rest(admin, "POST", "/v1/policies", { name: `plain-${++counter}`, body: "x", templates: ["note"] })],
      ["unknown kind", rest(admin, "POST", "/v1/policies", { name: `odd-${++counter}`, body: "x", kind: "veto" })],
      ["approve not a ULID", approve(approver, "not-a-ulid")],
      ["approve NUL", approve(approver, "%00")],
      ["approve long", approve(approver, "0".repeat(300))],
      ["reject long reason", reject(approver, kept, "x".repeat(1001))],
      ["reject reason object", rest(approver, "POST", `/v1/messages/${kept}/reject`, { reason: { a: 1 } })],
      ["list bad limit", rest(approver, "GET", "/v1/approvals?limit=many")],
      ["list forged cursor", rest(approver, "GET", "/v1/approvals?cursor=zzz")],
    ];
    for (const [label, call] of hostile) {
      const r = await call;
      expect([label, r.status >= 400 && r.status < 500, String(r.body.error?.code ?? "")]).toEqual([label, true, expect.stringMatching(/^SVC_/)]);
    }
    // Still waiting after all that.
    expect((await rest(approver, "GET", `/v1/approvals/${kept}`)).body.state).toBe("held_for_approval");
  });

  it("MCP: approve_message and reject_message are admin tools for the scope, and decide as REST does", async () => {
    const [alice, bob] = [await newAccount("alice"), await newAccount("bob")];
    const approver = await approverCredential();
    expect((await publishApproval({ recipients: [bob.name], require_step_up: true })).status).toBe(201);
    const first = (await send(alice, bob)).body.message_id as string;
    const second = (await send(alice, bob)).body.message_id as string;
    const agent = await connectMcpClient(served.url, `Bearer ${alice.token}`);
    const person = await connectMcpClient(served.url, `Bearer ${approver}`);
    try {
      const agentTools = (await agent.listTools()).tools.map((t) => t.name);
      expect(agentTools).not.toContain("approve_message");
      expect(errorCodeOf(await agent.callTool({ name: "approve_message", arguments: { message_id: first } }))).toBe("SVC_TIER_INSUFFICIENT");
      const tools = (await person.listTools()).tools.map((t) => t.name);
      expect(tools).toEqual(expect.arrayContaining(["list_approvals", "get_approval", "approve_message", "reject_message"]));
      const listed = structured(await person.callTool({ name: "list_approvals", arguments: {} })) as Json;
      // Oldest first (the workspace's other tests left messages waiting too).
      expect(listed.items.map((i: Json) => i.envelope.message_id).filter((m: string) => m === first || m === second)).toEqual([first, second]);
      // A credential with the scope needs no step-up, even when the policy asks sessions for one.
      const done = await person.callTool({ name: "approve_message", arguments: { message_id: first } });
      expect(errorCodeOf(done)).toBeUndefined();
      expect(structured(done)).toMatchObject({ message_id: first, state: "pending" });
      expect(errorCodeOf(await person.callTool({ name: "reject_message", arguments: { message_id: second, reason: "no" } }))).toBeUndefined();
      expect(errorCodeOf(await person.callTool({ name: "approve_message", arguments: { message_id: second } }))).toBe("SVC_RESOURCE_CONFLICT");
    } finally {
      await agent.close();
      await person.close();
    }
    expect((await claim(bob)).body.items.map((i: Json) => i.envelope.message_id)).toEqual([first]);
  });
});
