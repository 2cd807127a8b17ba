import { ADMINISTRATIVE_SCOPES, OPERATIONAL_SCOPES, OPERATIONS, createAuthenticator } from "@agentq/core";
import { bootstrapScenarioWorkspace, createInMemoryDeps, seedAccount, seedTokenCredential } from "@agentq/core/testing";
import type { InMemoryWorld } from "@agentq/core/testing";
import type { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { McpError } from "@modelcontextprotocol/sdk/types.js";
import { Ajv } from "ajv";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createMcpApp } from "./create-mcp-app.ts";
import { connectMcpClient, errorCodeOf, serveOnFreePort, structured } from "./testing/http-harness.ts";
import type { ServedApp } from "./testing/http-harness.ts";

const BASE = "https://queue.example.test";

let world: InMemoryWorld;
let served: ServedApp;
let admin: { authorization: string; workspaceId: string };
/** A credential that may call every tool (the scopes of both tiers: not issuable, seeded), so it is shown the whole catalogue. */
let everything: { authorization: string };
const clients: Client[] = [];

async function client(authorization: string): Promise<Client> {
  const c = await connectMcpClient(served.url, authorization);
  clients.push(c);
  return c;
}

beforeAll(async () => {
  world = createInMemoryDeps();
  const authenticator = createAuthenticator(world.deps);
  const app = createMcpApp(world.deps, { publicBaseUrl: `${BASE}/`, authenticator });
  served = await serveOnFreePort(app.fetch);
  const ws = await bootstrapScenarioWorkspace(world, "mcp-test", authenticator);
  admin = { authorization: ws.authorization, workspaceId: ws.workspace_id };
  everything = await seedTokenCredential(world, await seedAccount(world, ws.workspace_id), { tier: "administrative", scopes: [...OPERATIONAL_SCOPES, ...ADMINISTRATIVE_SCOPES] });
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await served.close();
});

describe("tool catalogue", () => {
  it("publishes one tool per credential operation to a caller that may call them all, each with an input schema that compiles as JSON Schema", async () => {
    const { tools } = await (await client(everything.authorization)).listTools();
    const expected = OPERATIONS.filter((op) => op.auth.kind === "credential").map((op) => op.name);
    expect(tools.map((t) => t.name)).toEqual(expected);
    expect(tools.length).toBeGreaterThan(0);
    const ajv = new Ajv({ strict: true, validateFormats: false });
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe("object");
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
      if (tool.outputSchema !== undefined) expect(() => ajv.compile(tool.outputSchema!), tool.name).not.toThrow();
    }
  });

  it("has every tool the specification names (§What the service does 4)", async () => {
    const names = new Set((await (await client(everything.authorization)).listTools()).tools.map((t) => t.name));
    for (const name of ["send", "validate", "get_pending", "ack", "nack", "extend_lease", "list_recipients", "list_templates", "get_template", "get_policies", "acknowledge_policies", "browse_audit_log"]) {
      expect(names.has(name), name).toBe(true);
    }
  });

  it("has a tool for every mutating operation called with a credential, with an idempotency_key argument where the operation takes a key", async () => {
    const { tools } = await (await client(everything.authorization)).listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    // Public operations (the notices' intake, supplement and withdrawal) are human routes with no credential: no tools.
    const mutating = OPERATIONS.filter((op) => op.mutates && op.auth.kind === "credential");
    expect(mutating.length).toBeGreaterThan(0);
    for (const op of mutating) {
      const tool = byName.get(op.name);
      expect(tool, op.name).toBeDefined();
      expect(Object.keys(tool!.inputSchema.properties ?? {}).includes("idempotency_key"), op.name).toBe(op.idempotency !== "none");
    }
  });
});

describe("tool calls", () => {
  it("returns the REST response body as structuredContent and as JSON text", async () => {
    const c = await client(admin.authorization);
    const result = await c.callTool({ name: "create_ai_account", arguments: { friendly_name: "mcp-created" } });
    expect(result.isError).toBeFalsy();
    expect(structured(result)).toMatchObject({ friendly_name: "mcp-created", state: "active" });
    const text = (result.content as { type: string; text: string }[])[0]!;
    expect(JSON.parse(text.text)).toEqual(structured(result));
  });

  it("runs a required-idempotency tool without a key, and replays the first response for a repeated key", async () => {
    const c = await client(admin.authorization);
    const account = await seedAccount(world, admin.workspaceId);
    const first = await c.callTool({ name: "freeze_ai_account", arguments: { ai_account_id: account.id, idempotency_key: "freeze-1" } });
    expect(first.isError).toBeFalsy();
    const replay = await c.callTool({ name: "freeze_ai_account", arguments: { ai_account_id: account.id, idempotency_key: "freeze-1" } });
    expect(structured(replay)).toEqual(structured(first));
    const other = await seedAccount(world, admin.workspaceId);
    const keyless = await c.callTool({ name: "freeze_ai_account", arguments: { ai_account_id: other.id } });
    expect(keyless.isError).toBeFalsy();
    expect(structured(keyless)).toMatchObject({ id: other.id, state: "frozen" });
  });

  it("reports a key reused for another request as SVC_IDEMPOTENCY_CONFLICT", async () => {
    const c = await client(admin.authorization);
    const a = await seedAccount(world, admin.workspaceId);
    const b = await seedAccount(world, admin.workspaceId);
    expect((await c.callTool({ name: "freeze_ai_account", arguments: { ai_account_id: a.id, idempotency_key: "reused" } })).isError).toBeFalsy();
    expect(errorCodeOf(await c.callTool({ name: "freeze_ai_account", arguments: { ai_account_id: b.id, idempotency_key: "reused" } }))).toBe("SVC_IDEMPOTENCY_CONFLICT");
  });

  it("reports malformed arguments as an isError result with SVC_MALFORMED_REQUEST and the request id", async () => {
    const c = await client(admin.authorization);
    for (const args of [{ friendly_name: 42 }, {}, { friendly_name: "Not Valid!" }, { friendly_name: "ok-name", idempotency_key: 7 }]) {
      const result = await c.callTool({ name: "create_ai_account", arguments: args });
      expect(errorCodeOf(result), JSON.stringify(args)).toBe("SVC_MALFORMED_REQUEST");
      expect(typeof structured(result)["request_id"]).toBe("string");
    }
  });

  it("reports a missing tier or scope with the code REST gives", async () => {
    const operator = await seedAccount(world, admin.workspaceId);
    const operational = await seedTokenCredential(world, operator, { scopes: ["send"] });
    const tierResult = await (await client(operational.authorization)).callTool({ name: "create_ai_account", arguments: { friendly_name: "nope" } });
    expect(errorCodeOf(tierResult)).toBe("SVC_TIER_INSUFFICIENT");
    const narrowAdmin = await seedTokenCredential(world, operator, { tier: "administrative", scopes: ["manage_credentials"] });
    const scopeResult = await (await client(narrowAdmin.authorization)).callTool({ name: "create_ai_account", arguments: { friendly_name: "nope" } });
    expect(errorCodeOf(scopeResult)).toBe("SVC_SCOPE_INSUFFICIENT");
  });

  it("reports a missing resource as SVC_RESOURCE_NOT_FOUND", async () => {
    const result = await (await client(admin.authorization)).callTool({ name: "get_ai_account", arguments: { ai_account_id: "01JZZZZZZZZZZZZZZZZZZZZZZZ" } });
    expect(errorCodeOf(result)).toBe("SVC_RESOURCE_NOT_FOUND");
  });

  it("reports a frozen caller as SVC_FROZEN in every tool result", async () => {
    const frozen = await seedAccount(world, admin.workspaceId, { state: "frozen" });
    const credential = await seedTokenCredential(world, frozen, { scopes: [...OPERATIONAL_SCOPES] });
    const c = await client(credential.authorization);
    expect((await c.listTools()).tools.length).toBeGreaterThan(0);
    expect(errorCodeOf(await c.callTool({ name: "get_workspace", arguments: {} }))).toBe("SVC_FROZEN");
  });

  it("answers an unknown tool with a protocol error, not a crash", async () => {
    const c = await client(admin.authorization);
    await expect(c.callTool({ name: "no_such_tool", arguments: {} })).rejects.toBeInstanceOf(McpError);
    expect((await c.callTool({ name: "get_workspace", arguments: {} })).isError).toBeFalsy();
  });
});

describe("messaging tools", () => {
  const directive = { directive_kind: "task", summary: "do it", instructions: "carefully" };

  async function pair(): Promise<{ alice: Client; bob: Client; bobName: string }> {
    const alice = await seedAccount(world, admin.workspaceId);
    const bob = await seedAccount(world, admin.workspaceId);
    const scopes = [...OPERATIONAL_SCOPES];
    return {
      alice: await client((await seedTokenCredential(world, alice, { scopes })).authorization),
      bob: await client((await seedTokenCredential(world, bob, { scopes })).authorization),
      bobName: bob.friendlyName,
    };
  }

  interface Claimed {
    envelope: { message_id: string; sender: { friendly_name: string }; priority: string; correlation_id: string | null };
    payload: unknown;
    lease: { lease_id: string };
  }

  async function claimOne(c: Client): Promise<Claimed> {
    const pending = await c.callTool({ name: "get_pending", arguments: { max: 1 } });
    expect(pending.isError).toBeFalsy();
    const items = structured(pending)["items"] as Claimed[];
    expect(items).toHaveLength(1);
    return items[0]!;
  }

  it("send (flattened envelope) -> get_pending -> ack between two accounts", async () => {
    const { alice, bob, bobName } = await pair();
    const sent = await alice.callTool({ name: "send", arguments: { recipient: { friendly_name: bobName }, template: "directive", priority: "high", correlation_id: "c-1", payload: directive } });
    expect(sent.isError).toBeFalsy();
    expect(structured(sent)).toMatchObject({ state: "pending", recipient: { friendly_name: bobName } });
    const messageId = structured(sent)["message_id"] as string;

    const item = await claimOne(bob);
    expect(item.envelope).toMatchObject({ message_id: messageId, priority: "high", correlation_id: "c-1" });
    expect(item.payload).toEqual(directive);

    const acked = await bob.callTool({ name: "ack", arguments: { message_id: messageId, lease_id: item.lease.lease_id, outcome_summary: "done" } });
    expect(structured(acked)).toMatchObject({ message_id: messageId, state: "acknowledged" });
    const again = await bob.callTool({ name: "ack", arguments: { message_id: messageId, lease_id: item.lease.lease_id, outcome_summary: "done" } });
    expect(structured(again)).toEqual(structured(acked));
    const shown = await alice.callTool({ name: "get_message", arguments: { message_id: messageId } });
    expect(structured(shown)["state"]).toBe("acknowledged");
  });

  it("long-polls: get_pending with wait returns the message sent while it waits", async () => {
    const { alice, bob, bobName } = await pair();
    const timersBefore = world.clock.pendingTimers;
    const waiting = bob.callTool({ name: "get_pending", arguments: { wait: "PT20S" } });
    // The claim found nothing and is now waiting (its timeout is a timer of the manual clock).
    await vi.waitFor(() => expect(world.clock.pendingTimers).toBeGreaterThan(timersBefore));
    const sent = await alice.callTool({ name: "send", arguments: { recipient: { friendly_name: bobName }, template: "directive", payload: directive } });
    const items = structured(await waiting)["items"] as Claimed[];
    expect(items.map((i) => i.envelope.message_id)).toEqual([structured(sent)["message_id"]]);
  });

  it("replays a send for a repeated idempotency_key and refuses the key with another body", async () => {
    const { alice, bobName } = await pair();
    const args = { recipient: { friendly_name: bobName }, template: "directive", payload: directive, idempotency_key: "send-once" };
    const first = await alice.callTool({ name: "send", arguments: args });
    const replay = await alice.callTool({ name: "send", arguments: args });
    expect(structured(replay)).toEqual(structured(first));
    const conflict = await alice.callTool({ name: "send", arguments: { ...args, priority: "urgent" } });
    expect(errorCodeOf(conflict)).toBe("SVC_IDEMPOTENCY_CONFLICT");
  });

  it("sends without an idempotency_key (the tool uses a fresh key per call)", async () => {
    const { alice, bobName } = await pair();
    const args = { recipient: { friendly_name: bobName }, template: "directive", payload: directive };
    const a = await alice.callTool({ name: "send", arguments: args });
    const b = await alice.callTool({ name: "send", arguments: args });
    expect(structured(a)["message_id"]).not.toBe(structured(b)["message_id"]);
  });

  it("reports an unknown recipient as SVC_RECIPIENT_RESOLUTION_FAILED", async () => {
    const { alice } = await pair();
    const result = await alice.callTool({ name: "send", arguments: { recipient: { friendly_name: "nobody-here" }, template: "directive", payload: directive } });
    expect(errorCodeOf(result)).toBe("SVC_RECIPIENT_RESOLUTION_FAILED");
  });

  it("reports malformed send arguments with paths in the tool's flattened shape", async () => {
    const { alice, bobName } = await pair();
    const result = await alice.callTool({ name: "send", arguments: { recipient: { friendly_name: bobName }, template: 7, payload: directive } });
    expect(errorCodeOf(result)).toBe("SVC_MALFORMED_REQUEST");
    const errors = (structured(result)["error"] as { details: { errors: { path: string }[] } }).details.errors;
    expect(errors.map((e) => e.path)).toContain("/template");
  });

  it("reports lease failures with the lease codes: wrong lease, expired lease", async () => {
    const { alice, bob, bobName } = await pair();
    await alice.callTool({ name: "send", arguments: { recipient: { friendly_name: bobName }, template: "directive", payload: directive } });
    const item = await claimOne(bob);
    const wrong = await bob.callTool({ name: "ack", arguments: { message_id: item.envelope.message_id, lease_id: "not-the-lease" } });
    expect(errorCodeOf(wrong)).toBe("SVC_LEASE_NOT_HELD");
    world.clock.advance(121_000);
    const expired = await bob.callTool({ name: "ack", arguments: { message_id: item.envelope.message_id, lease_id: item.lease.lease_id } });
    expect(errorCodeOf(expired)).toBe("SVC_LEASE_EXPIRED");
    const late = await bob.callTool({ name: "nack", arguments: { message_id: item.envelope.message_id, lease_id: item.lease.lease_id } });
    expect(errorCodeOf(late)).toBe("SVC_LEASE_EXPIRED");
  });

  it("reports a second nack within 30 s as SVC_NACK_RATE_LIMITED with REST's Retry-After in _meta", async () => {
    const { alice, bob, bobName } = await pair();
    await alice.callTool({ name: "send", arguments: { recipient: { friendly_name: bobName }, template: "directive", payload: directive } });
    const first = await claimOne(bob);
    expect((await bob.callTool({ name: "nack", arguments: { message_id: first.envelope.message_id, lease_id: first.lease.lease_id } })).isError).toBeFalsy();
    const second = await claimOne(bob);
    const refused = await bob.callTool({ name: "nack", arguments: { message_id: second.envelope.message_id, lease_id: second.lease.lease_id } });
    expect(errorCodeOf(refused)).toBe("SVC_NACK_RATE_LIMITED");
    expect(refused._meta?.["agentq/retry_after_seconds"]).toEqual(expect.any(Number));
  });

  it("reports a missing scope as SVC_SCOPE_INSUFFICIENT", async () => {
    const carol = await seedAccount(world, admin.workspaceId);
    const c = await client((await seedTokenCredential(world, carol, { scopes: ["get_pending"] })).authorization);
    const result = await c.callTool({ name: "send", arguments: { recipient: { friendly_name: carol.friendlyName }, template: "directive", payload: directive } });
    expect(errorCodeOf(result)).toBe("SVC_SCOPE_INSUFFICIENT");
  });
});

describe("authentication and metadata", () => {
  const expectedChallenge = `Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource/mcp", scope="${OPERATIONAL_SCOPES.join(" ")}"`;
  const initialize = { jsonrpc: "2.0", id: 1, method: "initialize", params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "raw", version: "0" } } };

  for (const [label, authorization] of [["no credential", undefined], ["an unknown credential", "Bearer agq_op_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"], ["a malformed header", "Basic abc"]] as const) {
    it(`refuses ${label} with 401, the WWW-Authenticate challenge and the error envelope`, async () => {
      const res = await fetch(`${served.url}/mcp`, {
        method: "POST",
        headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", ...(authorization === undefined ? {} : { Authorization: authorization }) },
        body: JSON.stringify(initialize),
      });
      expect(res.status).toBe(401);
      // A presented but unusable credential adds error="invalid_token" (RFC 6750 §3.1); none adds nothing.
      expect(res.headers.get("www-authenticate")).toBe(authorization === undefined ? expectedChallenge : `${expectedChallenge}, error="invalid_token"`);
      const body = (await res.json()) as { error: { code: string }; request_id: string };
      expect(body.error.code).toBe("SVC_UNAUTHENTICATED");
      expect(body.request_id).toBe(res.headers.get("x-request-id"));
    });
  }

  it("makes the SDK client fail to connect without a credential", async () => {
    await expect(connectMcpClient(served.url, "Bearer agq_op_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA")).rejects.toMatchObject({ code: 401 });
  });

  it("serves the protected-resource metadata at both well-known paths", async () => {
    for (const path of ["/.well-known/oauth-protected-resource/mcp", "/mcp/.well-known/oauth-protected-resource"]) {
      const res = await fetch(`${served.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(await res.json()).toEqual({
        resource: `${BASE}/mcp`,
        authorization_servers: [BASE],
        bearer_methods_supported: ["header"],
        scopes_supported: [...OPERATIONAL_SCOPES],
        resource_name: "agentq MCP server",
      });
    }
  });

  it("refuses GET and DELETE without a session (400 SVC_MALFORMED_REQUEST, reason session_required) and other methods with 405 SVC_METHOD_NOT_ALLOWED", async () => {
    for (const method of ["GET", "DELETE"]) {
      const res = await fetch(`${served.url}/mcp`, { method, headers: { Authorization: admin.authorization, Accept: "text/event-stream" } });
      expect(res.status, method).toBe(400);
      expect(((await res.json()) as { error: { code: string; details: { reason: string } } }).error).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { reason: "session_required" } });
    }
    const put = await fetch(`${served.url}/mcp`, { method: "PUT", headers: { Authorization: admin.authorization } });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, POST, DELETE");
    expect(((await put.json()) as { error: { code: string } }).error.code).toBe("SVC_METHOD_NOT_ALLOWED");
  });

  const post = (body: string | ReadableStream<Uint8Array>, headers: Record<string, string> = {}) => {
    // Node's fetch needs duplex "half" for a streamed body; RequestInit's type does not know it.
    const init: RequestInit & { duplex?: "half" } = {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: admin.authorization, ...headers },
      body,
      ...(typeof body === "string" ? {} : { duplex: "half" as const }),
    };
    return fetch(`${served.url}/mcp`, init);
  };

  it("refuses a request whose Origin is not the service's own (scheme, host and port) with 403 SVC_CSRF_REJECTED, credential or not, preflight included (DNS rebinding)", async () => {
    for (const origin of ["https://evil.example", "http://queue.example.test", "https://queue.example.test:8443", "https://other.example.test", "null", `http://127.0.0.1:${new URL(served.url).port}`]) {
      for (const authorization of [admin.authorization, undefined]) {
        const res = await fetch(`${served.url}/mcp`, {
          method: "POST",
          headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Origin: origin, ...(authorization === undefined ? {} : { Authorization: authorization }) },
          body: JSON.stringify(initialize),
        });
        expect(res.status, origin).toBe(403);
        const body = (await res.json()) as { error: { code: string }; request_id: string };
        expect(body.error.code, origin).toBe("SVC_CSRF_REJECTED");
        expect(body.request_id).toBe(res.headers.get("x-request-id"));
      }
      const preflight = await fetch(`${served.url}/mcp`, { method: "OPTIONS", headers: { Origin: origin, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization, content-type" } });
      expect(preflight.status, origin).toBe(403);
      expect(preflight.headers.get("access-control-allow-origin"), origin).toBeNull();
    }
    // The service's own origin, and no Origin at all (a program), are served.
    for (const headers of [{ Origin: BASE }, {}] as Record<string, string>[]) {
      const res = await fetch(`${served.url}/mcp`, { method: "POST", headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: admin.authorization, ...headers }, body: JSON.stringify(initialize) });
      expect(res.status, JSON.stringify(headers)).toBe(200);
    }
  });

  it("answers an authenticated POST with X-Request-Id and Cache-Control: no-store", async () => {
    const res = await post(JSON.stringify(initialize));
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toMatch(/^[0-9A-Z]{26}$/);
    expect(res.headers.get("cache-control")).toBe("no-store");
  });

  it("refuses JSON nested deeper than the REST limit (plus the JSON-RPC wrapper) with 400 SVC_MALFORMED_REQUEST", async () => {
    const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;
    const call = (payload: string) => `{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_workspace","arguments":{"x":${payload}}}}`;
    const refused = await post(call(deep(64)));
    expect(refused.status).toBe(400);
    expect(((await refused.json()) as { error: { code: string } }).error.code).toBe("SVC_MALFORMED_REQUEST");
    const accepted = await post(call(deep(60)), { "Mcp-Protocol-Version": "2025-06-18" });
    expect(accepted.status).toBe(200);
  });

  it("answers a body that is not JSON with the JSON-RPC parse error", async () => {
    const res = await post("{not json");
    expect(res.status).toBe(400);
    expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32700);
  });

  it("refuses a content-encoded body with 415 SVC_UNSUPPORTED_CONTENT_TYPE", async () => {
    const res = await post(JSON.stringify(initialize), { "Content-Encoding": "gzip" });
    expect(res.status).toBe(415);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("SVC_UNSUPPORTED_CONTENT_TYPE");
  });

  it("refuses a streamed body (no Content-Length) once it passes 256 KB", async () => {
    const chunk = new TextEncoder().encode("x".repeat(64 * 1024));
    let sent = 0;
    const stream = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (sent++ < 8) controller.enqueue(chunk);
        else controller.close();
      },
    });
    const res = await post(stream);
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("SVC_PAYLOAD_TOO_LARGE");
  });

  it("refuses a body over 256 KB with 413 SVC_PAYLOAD_TOO_LARGE", async () => {
    const res = await fetch(`${served.url}/mcp`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: admin.authorization },
      body: JSON.stringify({ ...initialize, padding: "x".repeat(300 * 1024) }),
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe("SVC_PAYLOAD_TOO_LARGE");
  });
});
