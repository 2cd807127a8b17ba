import { bootstrapWorkspace } from "@agentq/core";
import { TEST_SECRETS } from "@agentq/core/testing";
import { connectMcpClient, errorCodeOf, serveOnFreePort, type ServedApp } from "@agentq/mcp/testing";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { composeService, type ComposedService } from "./compose.ts";
import { createLogger } from "@agentq/runtime";

// Lever 3 of issue 18: send, get-pending and ack check the caller's account and workspace inside
// their own write (a guard of the statement) instead of a read before it. These tests change the
// account or workspace straight in SQL, behind the server's back (as another replica or an
// operator would), right after a successful request warmed every per-process cache, and require
// the very next request to be refused with the authenticator's code and to write nothing.

let db: TestSchema;
let service: ComposedService;
let served: ServedApp;
let workspaceId: string;
let admin: string;
let counter = 0;

interface Account {
  id: string;
  name: string;
  token: string;
}

async function rest(token: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`${served.url}${path}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json", "Idempotency-Key": `k-${++counter}-${Date.now()}` }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function newAccount(prefix: string, scopes: string[]): Promise<Account> {
  const name = `${prefix}-${++counter}`;
  const account = await rest(admin, "POST", "/v1/ai-accounts", { friendly_name: name });
  expect(account.status).toBe(201);
  const issued = await rest(admin, "POST", "/v1/credentials", { ai_account_id: account.body.id, tier: "operational", scopes, name });
  expect(issued.status).toBe(201);
  return { id: account.body.id as string, name, token: issued.body.token as string };
}

const send = (from: Account, to: Account) => rest(from.token, "POST", "/v1/messages/send", { envelope: { recipient: { friendly_name: to.name }, template: "note" }, payload: { text: "hi" } });
const claim = (by: Account) => rest(by.token, "POST", "/v1/messages/get-pending", { max: 10 });
const messageCount = async (sender: Account) => (await db.sql<{ n: number }[]>`select count(*)::int as n from messages where sender_id = ${sender.id}`)[0]?.n ?? 0;
const stateOf = async (messageId: string) => (await db.sql<{ state: string }[]>`select state from messages where id = ${messageId}`)[0]?.state;
const setAccount = (a: Account, state: string) => db.sql`update ai_accounts set state = ${state} where id = ${a.id}`;
const setWorkspace = (state: string) => db.sql`update workspaces set state = ${state} where id = ${workspaceId}`;

beforeAll(async () => {
  db = await createTestSchema({ max: 5 });
  service = composeService({ sql: db.sql, secrets: TEST_SECRETS, publicBaseUrl: "http://agentq.test", logger: createLogger("silent"), rateLimiter: "off" });
  served = await serveOnFreePort((request) => service.fetch(request));
  const boot = await bootstrapWorkspace(service.deps, { workspaceName: "guards", email: "owner@guards.test" });
  workspaceId = boot.workspace_id;
  admin = boot.token;
});
afterAll(async () => {
  await served?.close();
  await service?.close();
  await db?.drop();
});
beforeEach(async () => {
  await setWorkspace("active");
});

describe("the caller's account and workspace, checked by the write itself", () => {
  it("send: a freeze of the account or the workspace, or a revoked account, bites on the very next send, which stores nothing", async () => {
    const [sender, recipient] = [await newAccount("sender", ["send"]), await newAccount("recipient", ["get_pending"])];
    expect((await send(sender, recipient)).status).toBe(201);
    for (const [change, undo, code] of [
      [() => setAccount(sender, "frozen"), () => setAccount(sender, "active"), "SVC_FROZEN"],
      [() => setWorkspace("frozen"), () => setWorkspace("active"), "SVC_FROZEN"],
      [() => setWorkspace("closed"), () => setWorkspace("active"), "SVC_WORKSPACE_CLOSED"],
      [() => setAccount(sender, "revoked"), () => setAccount(sender, "active"), "SVC_UNAUTHENTICATED"],
    ] as const) {
      const before = await messageCount(sender);
      await change();
      const refused = await send(sender, recipient);
      expect(refused.body.error?.code).toBe(code);
      expect(await messageCount(sender)).toBe(before);
      await undo();
      expect((await send(sender, recipient)).status).toBe(201);
    }
  });

  it("send: a rename of the sender is on the next message's sender name", async () => {
    const [sender, recipient] = [await newAccount("sender", ["send"]), await newAccount("recipient", ["get_pending"])];
    expect((await send(sender, recipient)).status).toBe(201);
    await db.sql`update ai_accounts set friendly_name = ${`${sender.name}-renamed`} where id = ${sender.id}`;
    const sent = await send(sender, recipient);
    const [row] = await db.sql<{ sender_name: string }[]>`select sender_name from messages where id = ${sent.body.message_id as string}`;
    expect(row?.sender_name).toBe(`${sender.name}-renamed`);
  });

  it("get-pending: a frozen recipient or workspace, or a revoked recipient, claims nothing on the very next request", async () => {
    const [sender, recipient] = [await newAccount("sender", ["send"]), await newAccount("recipient", ["get_pending"])];
    expect((await claim(recipient)).status).toBe(200);
    const id = (await send(sender, recipient)).body.message_id as string;
    for (const [change, undo, code] of [
      [() => setAccount(recipient, "frozen"), () => setAccount(recipient, "active"), "SVC_FROZEN"],
      [() => setWorkspace("frozen"), () => setWorkspace("active"), "SVC_FROZEN"],
      [() => setAccount(recipient, "revoked"), () => setAccount(recipient, "active"), "SVC_UNAUTHENTICATED"],
    ] as const) {
      await change();
      expect((await claim(recipient)).body.error?.code).toBe(code);
      expect(await stateOf(id)).toBe("pending");
      await undo();
    }
    expect((await claim(recipient)).body.items).toHaveLength(1);
  });

  it("ack and batch ack: a frozen recipient or workspace acknowledges nothing on the very next request; the same lease acks after the unfreeze", async () => {
    const [sender, recipient] = [await newAccount("sender", ["send"]), await newAccount("recipient", ["get_pending", "ack"])];
    const ids = [(await send(sender, recipient)).body.message_id as string, (await send(sender, recipient)).body.message_id as string];
    const items = (await claim(recipient)).body.items as { envelope: { message_id: string }; lease: { lease_id: string } }[];
    expect(items).toHaveLength(2);
    const leaseOf = (id: string) => items.find((i) => i.envelope.message_id === id)?.lease.lease_id;
    const ackOne = () => rest(recipient.token, "POST", `/v1/messages/${ids[0]}/ack`, { lease_id: leaseOf(ids[0] as string) });
    const ackBatch = () => rest(recipient.token, "POST", "/v1/messages/ack", { items: [{ message_id: ids[1], lease_id: leaseOf(ids[1] as string) }] });
    for (const [change, undo] of [
      [() => setAccount(recipient, "frozen"), () => setAccount(recipient, "active")],
      [() => setWorkspace("frozen"), () => setWorkspace("active")],
    ] as const) {
      await change();
      expect((await ackOne()).body.error?.code).toBe("SVC_FROZEN");
      expect((await ackBatch()).body.error?.code).toBe("SVC_FROZEN");
      expect([await stateOf(ids[0] as string), await stateOf(ids[1] as string)]).toEqual(["held", "held"]);
      await undo();
    }
    expect((await ackOne()).status).toBe(200);
    const batch = await ackBatch();
    expect(batch.body.results?.[0]?.status).toBe(200);
    await setAccount(recipient, "revoked");
    expect((await ackOne()).body.error?.code).toBe("SVC_UNAUTHENTICATED");
    await setAccount(recipient, "active");
  });

  it("over MCP: the send tool of a caller frozen behind the server's back is refused with SVC_FROZEN", async () => {
    const [sender, recipient] = [await newAccount("sender", ["send"]), await newAccount("recipient", ["get_pending"])];
    const client = await connectMcpClient(served.url, `Bearer ${sender.token}`);
    try {
      const args = { recipient: { friendly_name: recipient.name }, template: "note", payload: { text: "hi" } };
      expect(errorCodeOf(await client.callTool({ name: "send", arguments: args }))).toBeUndefined();
      await setAccount(sender, "frozen");
      expect(errorCodeOf(await client.callTool({ name: "send", arguments: args }))).toBe("SVC_FROZEN");
      expect(errorCodeOf(await client.callTool({ name: "list_templates", arguments: {} }))).toBe("SVC_FROZEN");
    } finally {
      await setAccount(sender, "active");
      await client.close();
    }
  });
});
