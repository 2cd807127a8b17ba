import { ADMINISTRATIVE_SCOPES, OPERATIONAL_SCOPES, OPERATIONS, createAuthenticator, findOperation, scopesOfToolset, toolsetOf } from "@agentq/core";
import type { Toolset } from "@agentq/core";
import { bootstrapScenarioWorkspace, createInMemoryDeps, seedAccount, seedTokenCredential } from "@agentq/core/testing";
import type { InMemoryWorld } from "@agentq/core/testing";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpApp } from "./create-mcp-app.ts";
import { errorCodeOf, serveOnFreePort, structured } from "./testing/http-harness.ts";
import type { ServedApp } from "./testing/http-harness.ts";
import { toolBindings } from "./tool-binding.ts";

// tools/list per caller (DESIGN §2c "Agents' context"), over real HTTP with the official SDK
// client: which tools each credential is shown, the toolsets that narrow them, and the sizes an
// agent pays for on every turn.

const BASE = "https://queue.example.test";
const KB = 1024;

let world: InMemoryWorld;
let served: ServedApp;
let workspaceId: string;
const clients: Client[] = [];

/** An SDK client of `<url>/mcp<query>` with the credential (and any other headers). */
async function client(authorization: string, p: { query?: string; headers?: Record<string, string> } = {}): Promise<Client> {
  const c = new Client({ name: "agentq-listing-test", version: "0.0.0" });
  await c.connect(new StreamableHTTPClientTransport(new URL(`${served.url}/mcp${p.query ?? ""}`), { requestInit: { headers: { Authorization: authorization, ...p.headers } } }));
  clients.push(c);
  return c;
}

/** tools/list and its size in JSON bytes, as an agent receives it. */
async function listed(c: Client): Promise<{ tools: Tool[]; bytes: number }> {
  const result = await c.listTools();
  return { tools: result.tools, bytes: Buffer.byteLength(JSON.stringify(result)) };
}

async function credential(p: { tier?: "operational" | "administrative"; scopes: readonly string[] }): Promise<string> {
  const account = await seedAccount(world, workspaceId);
  return (await seedTokenCredential(world, account, { tier: p.tier ?? "operational", scopes: [...p.scopes] })).authorization;
}

const toolsetOfTool = (name: string): Toolset => toolsetOf(findOperation(name)!);
const isAdministrative = (name: string): boolean => {
  const auth = findOperation(name)!.auth;
  return auth.kind === "credential" && auth.tier === "administrative";
};

beforeAll(async () => {
  world = createInMemoryDeps();
  const authenticator = createAuthenticator(world.deps);
  served = await serveOnFreePort(createMcpApp(world.deps, { publicBaseUrl: `${BASE}/`, authenticator }).fetch);
  workspaceId = (await bootstrapScenarioWorkspace(world, "listing", authenticator)).workspace_id;
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await served.close();
});

describe("tools/list for an operational credential with the messaging scopes", () => {
  it("shows the messaging tools it may call, in at most 16 KB, and no administrative tool", async () => {
    const { tools, bytes } = await listed(await client(await credential({ scopes: scopesOfToolset("messaging") })));
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["send", "validate", "get_pending", "ack", "ack_batch", "nack", "extend_lease", "list_recipients", "list_templates", "get_template", "get_policies", "acknowledge_policies", "browse_audit_log"]));
    expect(names.filter((n) => toolsetOfTool(n) !== "messaging")).toEqual([]);
    expect(names.filter(isAdministrative)).toEqual([]);
    expect(bytes).toBeLessThanOrEqual(16 * KB);
  });

  it("still refuses a tool it is not shown with the tier or scope code, when called by name", async () => {
    const c = await client(await credential({ scopes: scopesOfToolset("messaging") }));
    expect(errorCodeOf(await c.callTool({ name: "create_ai_account", arguments: { friendly_name: "hidden" } }))).toBe("SVC_TIER_INSUFFICIENT");
    expect(errorCodeOf(await c.callTool({ name: "list_dead_letters", arguments: {} }))).toBe("SVC_TIER_INSUFFICIENT");
    expect(errorCodeOf(await c.callTool({ name: "create_project", arguments: { name: "hidden" } }))).toBe("SVC_SCOPE_INSUFFICIENT");
  });
});

describe("tools/list for the callers that may call the most", () => {
  it("is at most 64 KB for an operational credential with every operational scope, every toolset named", async () => {
    const { tools, bytes } = await listed(await client(await credential({ scopes: OPERATIONAL_SCOPES }), { query: "?toolsets=messaging,session_state,admin" }));
    expect(tools.filter((t) => isAdministrative(t.name))).toEqual([]);
    expect(tools.length).toBeGreaterThan(60);
    expect(bytes).toBeLessThanOrEqual(64 * KB);
  });

  it("is at most 64 KB for an administrative credential with every administrative scope, every toolset named", async () => {
    const { tools, bytes } = await listed(await client(await credential({ tier: "administrative", scopes: ADMINISTRATIVE_SCOPES }), { query: "?toolsets=messaging,session_state,admin" }));
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(["create_ai_account", "issue_credential", "create_webhook", "list_dead_letters", "verify_audit_log"]));
    expect(bytes).toBeLessThanOrEqual(64 * KB);
  });

  it("has no tool over 4 KB, each description one or two sentences, and output schemas of the success result only", async () => {
    // Every tool of the catalogue, as a caller holding the scopes of both tiers (not issuable) would be shown them.
    const { tools } = await listed(await client(await credential({ tier: "administrative", scopes: [...OPERATIONAL_SCOPES, ...ADMINISTRATIVE_SCOPES] })));
    expect(tools.map((t) => t.name)).toEqual(toolBindings(OPERATIONS).map((b) => b.tool.name));
    const ajv = new Ajv({ strict: true, validateFormats: false });
    const envelope = { error: { code: "SVC_RESOURCE_NOT_FOUND", message: "AI account not found.", details: { resource: "AI account" } }, request_id: "req-1" };
    for (const tool of tools) {
      expect(Buffer.byteLength(JSON.stringify(tool)), tool.name).toBeLessThanOrEqual(4 * KB);
      const sentences = (tool.description ?? "").replace(/\b(e\.g|i\.e|etc)\./g, "$1").split(/[.!?](?:\s|$)/).filter((x) => x.trim() !== "");
      expect(sentences.length, tool.name).toBeLessThanOrEqual(2);
      // No error branch in any output schema (the failure shape is said once, in the instructions),
      // yet the envelope passes it: clients that check isError results against it too do not choke.
      expect(tool.outputSchema?.["anyOf"], tool.name).toBeUndefined();
      expect(Object.keys(tool.outputSchema?.properties ?? {}), tool.name).not.toContain("error");
      if (tool.outputSchema !== undefined) expect(ajv.validate(tool.outputSchema, envelope), tool.name).toBe(true);
    }
  });

  it("says the failure shape once, in the server's instructions, and a failure still reaches the SDK client as an isError result", async () => {
    const c = await client(await credential({ tier: "administrative", scopes: ADMINISTRATIVE_SCOPES }));
    expect(c.getInstructions()).toContain("isError");
    expect(c.getInstructions()).toContain("request_id");
    await c.listTools();
    // The SDK client checks structuredContent against the output schema, isError results too (typescript-sdk#1943).
    const failed = await c.callTool({ name: "get_ai_account", arguments: { ai_account_id: "01JZZZZZZZZZZZZZZZZZZZZZZZ" } });
    expect(errorCodeOf(failed)).toBe("SVC_RESOURCE_NOT_FOUND");
    const created = await c.callTool({ name: "create_ai_account", arguments: { friendly_name: "listing-created" } });
    expect(structured(created)).toMatchObject({ friendly_name: "listing-created" });
  });
});

describe("toolsets", () => {
  it("shows each caller the toolsets its scopes allow when it names none: admin by tier, messaging and session_state by scope", async () => {
    const toolsetsOf = async (authorization: string) => [...new Set((await listed(await client(authorization))).tools.map((t) => toolsetOfTool(t.name)))].sort();
    expect(await toolsetsOf(await credential({ tier: "administrative", scopes: ["manage_ai_accounts"] }))).toEqual(["admin"]);
    expect(await toolsetsOf(await credential({ scopes: ["manage_projects", "write_session_state"] }))).toEqual(["session_state"]);
    expect(await toolsetsOf(await credential({ scopes: ["send", "write_session_state"] }))).toEqual(["messaging", "session_state"]);
    // No scope that gates a toolset: every toolset, tool by tool (the reads an operational credential may always make).
    expect(await toolsetsOf(await credential({ scopes: [] }))).toEqual(["messaging", "session_state"]);
  });

  it("narrows tools/list to the toolsets named in ?toolsets= and X-MCP-Toolsets (both: those both name), and leaves calls alone", async () => {
    const all = await credential({ scopes: OPERATIONAL_SCOPES });
    const names = async (p: { query?: string; headers?: Record<string, string> }) => (await listed(await client(all, p))).tools.map((t) => t.name);
    const messaging = await names({ query: "?toolsets=messaging" });
    expect(messaging).toContain("send");
    expect(messaging.every((n) => toolsetOfTool(n) === "messaging")).toBe(true);
    const sessionState = await names({ headers: { "X-MCP-Toolsets": " session_state " } });
    expect(sessionState).toContain("record_decision");
    expect(sessionState.every((n) => toolsetOfTool(n) === "session_state")).toBe(true);
    expect(await names({ query: "?toolsets=messaging,session_state", headers: { "X-MCP-Toolsets": "session_state,admin" } })).toEqual(sessionState);
    const c = await client(all, { query: "?toolsets=session_state" });
    expect((await c.listTools()).tools.map((t) => t.name)).not.toContain("get_workspace");
    expect((await c.callTool({ name: "get_workspace", arguments: {} })).isError).toBeFalsy();
  });

  it("refuses a name that is not a toolset with 400 SVC_MALFORMED_REQUEST naming it, in the query or the header", async () => {
    const authorization = await credential({ scopes: ["send"] });
    const init = (headers: Record<string, string> = {}) => ({
      method: "POST",
      headers: { Authorization: authorization, "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...headers },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} }),
    });
    const byQuery = await fetch(`${served.url}/mcp?toolsets=messaging,everything`, init());
    expect(byQuery.status).toBe(400);
    expect(await byQuery.json()).toMatchObject({ error: { code: "SVC_MALFORMED_REQUEST", details: { field: "toolsets", unknown: ["everything"] } } });
    const byHeader = await fetch(`${served.url}/mcp`, init({ "X-MCP-Toolsets": "Messaging" }));
    expect(byHeader.status).toBe(400);
    expect(await byHeader.json()).toMatchObject({ error: { code: "SVC_MALFORMED_REQUEST", details: { field: "X-MCP-Toolsets", unknown: ["Messaging"] } } });
    const many = await fetch(`${served.url}/mcp?toolsets=${Array.from({ length: 17 }, () => "admin").join(",")}`, init());
    expect(many.status).toBe(400);
    expect(await fetch(`${served.url}/mcp?toolsets=`, init())).toHaveProperty("status", 200);
  });
});
