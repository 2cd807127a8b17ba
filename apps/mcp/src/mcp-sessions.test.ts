import { SECOND_MS, createAuthenticator, requestFingerprint, sendMessage, type CredentialPrincipal, type SendMessageInput } from "@agentq/core";
import { bootstrapScenarioWorkspace, callContext, createInMemoryDeps, seedAccount, seedTokenCredential, ALL_OPERATIONAL_SCOPES, type InMemoryWorld } from "@agentq/core/testing";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { createMcpApp } from "./create-mcp-app.ts";
import { McpSessions } from "./mcp-sessions.ts";
import { connectMcpClient, errorCodeOf, serveOnFreePort, structured, subscribeToInbox, type InboxSubscriber, type ServedApp } from "./testing/http-harness.ts";

const HEADERS = { accept: "application/json, text/event-stream", "content-type": "application/json" };
const INITIALIZE = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } };

interface Agent {
  authorization: string;
  principal: CredentialPrincipal;
  friendlyName: string;
}

let world: InMemoryWorld;
let sessions: McpSessions;
let served: ServedApp;
let authenticator: ReturnType<typeof createAuthenticator>;
const open: InboxSubscriber[] = [];

async function agent(workspaceId: string, friendlyName: string, scopes: string[] = ALL_OPERATIONAL_SCOPES): Promise<Agent> {
  const account = await seedAccount(world, workspaceId, { friendlyName });
  const { authorization } = await seedTokenCredential(world, account, { scopes });
  return { authorization, principal: await authenticator.authenticate(authorization), friendlyName };
}

async function send(from: Agent, to: string): Promise<string> {
  const input: SendMessageInput = { envelope: { recipient: { friendly_name: to }, template: "directive" }, payload: { directive_kind: "task", summary: "s", instructions: "i" } };
  const r = await sendMessage(world.deps, callContext(from.principal, { idempotencyKey: crypto.randomUUID(), fingerprint: requestFingerprint({ method: "POST", path: "/v1/messages/send", body: input }) }), input);
  return (r.body as { message_id: string }).message_id;
}

async function subscriber(a: Agent): Promise<InboxSubscriber> {
  const s = await subscribeToInbox(served.url, a.authorization);
  open.push(s);
  return s;
}

const post = (authorization: string, body: unknown, headers: Record<string, string> = {}) => fetch(`${served.url}/mcp`, { method: "POST", headers: { ...HEADERS, authorization, ...headers }, body: JSON.stringify(body) });

beforeAll(async () => {
  world = createInMemoryDeps();
  authenticator = createAuthenticator(world.deps);
  sessions = new McpSessions(world.deps, { limits: { perAccount: 3 }, inbox: { tickMs: 50 } });
  served = await serveOnFreePort(createMcpApp(world.deps, { authenticator, sessions }).fetch);
});

afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});

afterAll(async () => {
  sessions.close();
  await served.close();
});

describe("sessions: Mcp-Session-Id, owned by the credential that opened it", () => {
  it("opens none when told stateless (a server of several workers): initialize answers without Mcp-Session-Id, tool calls still answer", async () => {
    const statelessSessions = new McpSessions(world.deps, { stateless: true });
    const app = await serveOnFreePort(createMcpApp(world.deps, { authenticator, sessions: statelessSessions }).fetch);
    try {
      const ws = await bootstrapScenarioWorkspace(world, "sessions-stateless", authenticator);
      const init = await fetch(`${app.url}/mcp`, { method: "POST", headers: { ...HEADERS, authorization: ws.authorization }, body: JSON.stringify(INITIALIZE) });
      expect(init.status).toBe(200);
      expect(init.headers.get("mcp-session-id")).toBeNull();
      await init.body?.cancel();
      const call = await fetch(`${app.url}/mcp`, { method: "POST", headers: { ...HEADERS, authorization: ws.authorization }, body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_ai_accounts", arguments: {} } }) });
      expect(call.status).toBe(200);
      expect(((await call.json()) as { result: { isError?: boolean } }).result.isError).toBeUndefined();
    } finally {
      statelessSessions.close();
      await app.close();
    }
  });

  it("initialize opens a session whose id is visible ASCII; a tool call in it answers as a stateless one does; DELETE ends it (then 404)", async () => {
    const ws = await bootstrapScenarioWorkspace(world, "sessions-basic", authenticator);
    const init = await post(ws.authorization, INITIALIZE);
    expect(init.status).toBe(200);
    const id = init.headers.get("mcp-session-id") ?? "";
    expect(id).toMatch(/^[\x21-\x7e]{20,}$/);
    await init.body?.cancel();
    const inSession = await post(ws.authorization, { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_ai_accounts", arguments: {} } }, { "mcp-session-id": id });
    expect(inSession.status).toBe(200);
    expect(((await inSession.json()) as { result: { isError?: boolean } }).result.isError).toBeUndefined();

    const del = await fetch(`${served.url}/mcp`, { method: "DELETE", headers: { authorization: ws.authorization, "mcp-session-id": id } });
    expect(del.status).toBe(200);
    const after = await post(ws.authorization, { jsonrpc: "2.0", id: 3, method: "tools/list", params: {} }, { "mcp-session-id": id });
    expect(after.status).toBe(404);
    expect(((await after.json()) as { error: { code: string } }).error.code).toBe("SVC_RESOURCE_NOT_FOUND");
  });

  it("refuses the session's id with another credential, of another workspace or of the same account: 404, as for an unknown id; a rotation's successor continues it", async () => {
    const ws = await bootstrapScenarioWorkspace(world, "sessions-owner", authenticator);
    const other = await bootstrapScenarioWorkspace(world, "sessions-thief", authenticator);
    const init = await post(ws.authorization, INITIALIZE);
    const id = init.headers.get("mcp-session-id") ?? "";
    await init.body?.cancel();
    const sameAccount = await seedTokenCredential(world, { id: ws.principal.account.id, workspaceId: ws.workspace_id }, { tier: "administrative", scopes: ["manage_ai_accounts"] });
    for (const authorization of [other.authorization, sameAccount.authorization]) {
      for (const method of ["POST", "GET", "DELETE"]) {
        const res = await fetch(`${served.url}/mcp`, { method, headers: { ...HEADERS, authorization, "mcp-session-id": id }, ...(method === "POST" ? { body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "ping" }) } : {}) });
        expect(res.status, method).toBe(404);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe("SVC_RESOURCE_NOT_FOUND");
      }
    }
    // The owner's session is untouched by the attempts.
    const own = await post(ws.authorization, { jsonrpc: "2.0", id: 4, method: "ping" }, { "mcp-session-id": id });
    expect(own.status).toBe(200);
    await own.body?.cancel();
    // The same authorization continued (a rotation's successor, both valid during the overlap) keeps the session.
    const successor = await seedTokenCredential(world, { id: ws.principal.account.id, workspaceId: ws.workspace_id }, { tier: "administrative", scopes: ["manage_ai_accounts"], rotatedFromId: ws.principal.credential.id });
    for (const authorization of [successor.authorization, ws.authorization, successor.authorization]) {
      const continued = await post(authorization, { jsonrpc: "2.0", id: 5, method: "ping" }, { "mcp-session-id": id });
      expect(continued.status).toBe(200);
      await continued.body?.cancel();
    }
  });

  it("on another process (or after a restart) answers the owner's session id statelessly, refuses it to another credential, and gives 404 to what needs the session itself", async () => {
    // A second McpSessions over the same database and secrets stands for another server process.
    const elsewhere = new McpSessions(world.deps);
    const other = await serveOnFreePort(createMcpApp(world.deps, { authenticator, sessions: elsewhere }).fetch);
    try {
      const ws = await bootstrapScenarioWorkspace(world, "sessions-elsewhere", authenticator);
      const worker = await agent(ws.workspace_id, "worker");
      const init = await post(worker.authorization, INITIALIZE);
      const id = init.headers.get("mcp-session-id") ?? "";
      await init.body?.cancel();
      const at = (authorization: string, method: string, body?: unknown) =>
        fetch(`${other.url}/mcp`, { method, headers: { ...HEADERS, authorization, "mcp-session-id": id }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
      const call = await at(worker.authorization, "POST", { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_templates", arguments: {} } });
      expect(call.status).toBe(200);
      expect(((await call.json()) as { result: { isError?: boolean } }).result.isError).toBeUndefined();
      const read = await at(worker.authorization, "POST", { jsonrpc: "2.0", id: 3, method: "resources/read", params: { uri: "agentq://inbox" } });
      expect(read.status).toBe(200);
      await read.body?.cancel();
      for (const [method, body] of [["GET", undefined], ["DELETE", undefined], ["POST", { jsonrpc: "2.0", id: 4, method: "resources/subscribe", params: { uri: "agentq://inbox" } }]] as const) {
        const res = await at(worker.authorization, method, body);
        expect(res.status, method).toBe(404);
        expect(((await res.json()) as { error: { code: string } }).error.code).toBe("SVC_RESOURCE_NOT_FOUND");
      }
      const thief = await agent(ws.workspace_id, "thief");
      const stolen = await at(thief.authorization, "POST", { jsonrpc: "2.0", id: 5, method: "ping" });
      expect(stolen.status).toBe(404);
      await stolen.body?.cancel();
      const forged = await fetch(`${other.url}/mcp`, { method: "POST", headers: { ...HEADERS, authorization: worker.authorization, "mcp-session-id": `${id.slice(0, -1)}${id.endsWith("A") ? "B" : "A"}` }, body: JSON.stringify({ jsonrpc: "2.0", id: 6, method: "ping" }) });
      expect(forged.status).toBe(404);
      await forged.body?.cancel();
    } finally {
      elsewhere.close();
      await other.close();
    }
  });

  it("stays stateless without a session id: tool calls answer; GET and DELETE give 400 SVC_MALFORMED_REQUEST; a subscription needs a session", async () => {
    const ws = await bootstrapScenarioWorkspace(world, "sessions-stateless", authenticator);
    const call = await post(ws.authorization, { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "list_ai_accounts", arguments: {} } });
    expect(call.status).toBe(200);
    expect(call.headers.get("mcp-session-id")).toBeNull();
    await call.body?.cancel();
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${served.url}/mcp`, { method, headers: { ...HEADERS, authorization: ws.authorization } });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: { code: string; details: { reason: string } } }).error).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { reason: "session_required" } });
    }
    const worker = await agent(ws.workspace_id, "worker");
    const sub = await post(worker.authorization, { jsonrpc: "2.0", id: 2, method: "resources/subscribe", params: { uri: "agentq://inbox" } });
    const body = (await sub.json()) as { error: { code: number; data: { error: { code: string } } } };
    expect(body.error.code).toBe(-32602);
    expect(body.error.data.error.code).toBe("SVC_MALFORMED_REQUEST");
  });

  it("holds at most perAccount sessions: the least recently used one without a stream makes room; with every one streaming, 429 SVC_RATE_LIMITED", async () => {
    const ws = await bootstrapScenarioWorkspace(world, "sessions-cap", authenticator);
    const a = await agent(ws.workspace_id, "capped");
    const initialize = async () => {
      const res = await post(a.authorization, INITIALIZE);
      await res.body?.cancel();
      return { status: res.status, id: res.headers.get("mcp-session-id"), retryAfter: res.headers.get("retry-after"), res };
    };
    const first = await initialize();
    const streams: Response[] = [];
    for (let i = 0; i < 2; i++) {
      const s = await initialize();
      const stream = await fetch(`${served.url}/mcp`, { headers: { accept: "text/event-stream", authorization: a.authorization, "mcp-session-id": s.id ?? "" } });
      expect(stream.status).toBe(200);
      expect(stream.headers.get("content-type")).toContain("text/event-stream");
      streams.push(stream);
    }
    // At the cap of 3: the first session (no stream) is closed to make room.
    const fourth = await initialize();
    expect(fourth.status).toBe(200);
    const gone = await post(a.authorization, { jsonrpc: "2.0", id: 9, method: "ping" }, { "mcp-session-id": first.id ?? "" });
    expect(gone.status).toBe(404);
    await gone.body?.cancel();
    const stream = await fetch(`${served.url}/mcp`, { headers: { accept: "text/event-stream", authorization: a.authorization, "mcp-session-id": fourth.id ?? "" } });
    streams.push(stream);
    // Three sessions, each holding a stream: a fifth is refused.
    const refused = await post(a.authorization, INITIALIZE);
    expect(refused.status).toBe(429);
    expect(refused.headers.get("retry-after")).not.toBeNull();
    expect(((await refused.json()) as { error: { code: string; details: { limit: string } } }).error).toMatchObject({ code: "SVC_RATE_LIMITED", details: { limit: "mcp_sessions_per_account" } });
    for (const s of streams) await s.body?.cancel();
  });

  it("ends every session and stream on close(), and initializes statelessly afterwards", async () => {
    const local = createInMemoryDeps();
    const auth = createAuthenticator(local.deps);
    const own = new McpSessions(local.deps);
    const app = await serveOnFreePort(createMcpApp(local.deps, { authenticator: auth, sessions: own }).fetch);
    try {
      const ws = await bootstrapScenarioWorkspace(local, "sessions-close", auth);
      const init = await fetch(`${app.url}/mcp`, { method: "POST", headers: { ...HEADERS, authorization: ws.authorization }, body: JSON.stringify(INITIALIZE) });
      const id = init.headers.get("mcp-session-id") ?? "";
      await init.body?.cancel();
      const stream = await fetch(`${app.url}/mcp`, { headers: { accept: "text/event-stream", authorization: ws.authorization, "mcp-session-id": id } });
      const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
      await reader.read();
      own.close();
      // The stream ends (the server's drain then has nothing to wait for).
      for (;;) if ((await reader.read()).done) break;
      expect(own.size).toBe(0);
      const later = await fetch(`${app.url}/mcp`, { method: "POST", headers: { ...HEADERS, authorization: ws.authorization }, body: JSON.stringify(INITIALIZE) });
      expect(later.status).toBe(200);
      expect(later.headers.get("mcp-session-id")).toBeNull();
      await later.body?.cancel();
    } finally {
      own.close();
      await app.close();
    }
  });

  it("closes a session left without a request or a stream for idleMs", async () => {
    const local = createInMemoryDeps();
    const auth = createAuthenticator(local.deps);
    const own = new McpSessions(local.deps, { limits: { idleMs: 100 } });
    const app = await serveOnFreePort(createMcpApp(local.deps, { authenticator: auth, sessions: own }).fetch);
    try {
      const ws = await bootstrapScenarioWorkspace(local, "sessions-idle", auth);
      const init = await fetch(`${app.url}/mcp`, { method: "POST", headers: { ...HEADERS, authorization: ws.authorization }, body: JSON.stringify(INITIALIZE) });
      await init.body?.cancel();
      expect(own.size).toBe(1);
      await expect.poll(() => own.size, { timeout: 5_000, interval: 50 }).toBe(0);
    } finally {
      own.close();
      await app.close();
    }
  });
});

describe("agentq://inbox: read, subscribe, notified when a message becomes claimable", () => {
  it("a subscribed SDK client is notified of a send to its account, reads counts and the oldest envelope (no payload), and is not notified of a send to another account", async () => {
    const ws = await bootstrapScenarioWorkspace(world, "inbox-send", authenticator);
    const sender = await agent(ws.workspace_id, "sender");
    const worker = await agent(ws.workspace_id, "worker");
    await agent(ws.workspace_id, "bystander");
    const sub = await subscriber(worker);
    expect(sub.sessionId).not.toBe("");

    await send(sender, "bystander");
    const messageId = await send(sender, "worker");
    await sub.waitForUpdate(0);
    const read = await sub.client.readResource({ uri: "agentq://inbox" });
    const content = read.contents[0] as { uri: string; mimeType: string; text: string };
    expect(content).toMatchObject({ uri: "agentq://inbox", mimeType: "application/json" });
    const inbox = JSON.parse(content.text) as Record<string, unknown>;
    expect(inbox).toMatchObject({ ai_account: { friendly_name: "worker" }, claimable: { urgent: 0, high: 0, normal: 1, low: 0 }, count_limit: 1000, oldest: { message_id: messageId, sender: { friendly_name: "sender" }, template: "directive" } });
    expect(JSON.stringify(inbox)).not.toContain("instructions");
    // Exactly the one send to worker; the send to bystander told worker nothing.
    await new Promise((r) => setTimeout(r, 300));
    expect(sub.updates()).toBe(1);

    const { resources } = await sub.client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(["agentq://inbox"]);
    const unknown = await sub.client.readResource({ uri: "agentq://outbox" }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(McpError);
    expect((unknown as McpError).code).toBe(-32602);
    expect((unknown as McpError).data).toEqual({ uri: "agentq://outbox" });
  });

  it("notifies when a lease runs out and when a nack's redelivery delay ends, and stops after unsubscribe", async () => {
    const ws = await bootstrapScenarioWorkspace(world, "inbox-timed", authenticator);
    const sender = await agent(ws.workspace_id, "sender");
    const worker = await agent(ws.workspace_id, "worker");
    const sub = await subscriber(worker);
    await send(sender, "worker");
    await send(sender, "worker");
    await sub.waitForUpdate(0);
    const tools = await connectMcpClient(served.url, worker.authorization);
    try {
      const claimed = structured(await tools.callTool({ name: "get_pending", arguments: { max: 2, visibility_timeout: "PT10S" } }))["items"] as { envelope: { message_id: string }; lease: { lease_id: string } }[];
      expect(claimed).toHaveLength(2);
      const [kept, declined] = claimed as [(typeof claimed)[number], (typeof claimed)[number]];
      const nacked = await tools.callTool({ name: "nack", arguments: { message_id: declined.envelope.message_id, lease_id: declined.lease.lease_id, redeliver_after: "PT60S" } });
      expect(errorCodeOf(nacked)).toBeUndefined();
      await new Promise((r) => setTimeout(r, 200));
      const before = sub.updates();

      // The lease of `kept` runs out (10 s of the world's clock).
      world.clock.advance(11 * SECOND_MS);
      await sub.waitForUpdate(before);
      const afterLease = sub.updates();
      const inbox = JSON.parse(((await sub.client.readResource({ uri: "agentq://inbox" })).contents[0] as { text: string }).text) as { claimable: { normal: number }; oldest: { message_id: string; delivery_count: number } };
      expect(inbox.claimable.normal).toBe(1);
      expect(inbox.oldest).toMatchObject({ message_id: kept.envelope.message_id, delivery_count: 1 });

      // The nack's 60 s delay ends.
      world.clock.advance(50 * SECOND_MS);
      await sub.waitForUpdate(afterLease);

      await sub.client.unsubscribeResource({ uri: "agentq://inbox" });
      const unsubscribed = sub.updates();
      await send(sender, "worker");
      await new Promise((r) => setTimeout(r, 300));
      expect(sub.updates()).toBe(unsubscribed);
    } finally {
      await tools.close();
    }
  });

  it("refuses reading and subscribing without scope get_pending: JSON-RPC -32600 whose data is the envelope (SVC_SCOPE_INSUFFICIENT)", async () => {
    const ws = await bootstrapScenarioWorkspace(world, "inbox-scope", authenticator);
    const sendOnly = await agent(ws.workspace_id, "sendonly", ["send"]);
    const client = await connectMcpClient(served.url, sendOnly.authorization);
    try {
      for (const attempt of [() => client.readResource({ uri: "agentq://inbox" }), () => client.subscribeResource({ uri: "agentq://inbox" })]) {
        const error = await attempt().catch((e: unknown) => e);
        expect(error).toBeInstanceOf(McpError);
        expect((error as McpError).code).toBe(-32600);
        expect(((error as McpError).data as { error: { code: string } }).error.code).toBe("SVC_SCOPE_INSUFFICIENT");
      }
    } finally {
      await client.close();
    }
  });

  it("never tells a subscriber of another workspace's messages, even to an account of the same name", async () => {
    const a = await bootstrapScenarioWorkspace(world, "inbox-tenant-a", authenticator);
    const b = await bootstrapScenarioWorkspace(world, "inbox-tenant-b", authenticator);
    const workerA = await agent(a.workspace_id, "worker");
    const senderB = await agent(b.workspace_id, "sender");
    await agent(b.workspace_id, "worker");
    const senderA = await agent(a.workspace_id, "sender");
    const sub = await subscriber(workerA);
    for (let i = 0; i < 3; i++) await send(senderB, "worker");
    await new Promise((r) => setTimeout(r, 300));
    expect(sub.updates()).toBe(0);
    const inbox = JSON.parse(((await sub.client.readResource({ uri: "agentq://inbox" })).contents[0] as { text: string }).text) as { claimable: { normal: number }; oldest: unknown };
    expect(inbox).toMatchObject({ claimable: { normal: 0 }, oldest: null });
    // The same subscriber does hear its own workspace (the test above could not pass by hearing nothing at all).
    await send(senderA, "worker");
    await sub.waitForUpdate(0);
  });
});
