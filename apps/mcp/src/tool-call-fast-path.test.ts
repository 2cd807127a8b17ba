import { OPERATIONS, createAuthenticator } from "@agentq/core";
import { bootstrapScenarioWorkspace, createInMemoryDeps } from "@agentq/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpApp } from "./create-mcp-app.ts";
import { serveOnFreePort, type ServedApp } from "./testing/http-harness.ts";
import { toolBindings } from "./tool-binding.ts";
import { plainToolCall } from "./tool-call-fast-path.ts";

const byName = new Map(toolBindings(OPERATIONS).map((b) => [b.tool.name, b]));
const HEADERS = { accept: "application/json, text/event-stream", "content-type": "application/json", "mcp-protocol-version": "2025-06-18" };
const call = (params: unknown, extra: Record<string, unknown> = {}) => ({ jsonrpc: "2.0", id: 7, method: "tools/call", params, ...extra });

describe("plainToolCall: only what the SDK would answer the same way", () => {
  it("takes a single tools/call of a known tool with plain arguments, sent as Streamable HTTP requires", () => {
    expect(plainToolCall(new Headers(HEADERS), call({ name: "list_templates", arguments: {} }), byName)).toMatchObject({ id: 7, args: {} });
    expect(plainToolCall(new Headers(HEADERS), call({ name: "list_templates" }), byName)).toMatchObject({ id: 7, args: {} });
    expect(plainToolCall(new Headers({ ...HEADERS, "content-type": "application/json; charset=utf-8" }), { ...call({ name: "send", arguments: { a: 1 } }), id: "x" }, byName)).toMatchObject({ id: "x", args: { a: 1 } });
  });

  it("leaves everything else to the SDK", () => {
    const no = (headers: Record<string, string>, body: unknown) => expect(plainToolCall(new Headers(headers), body, byName)).toBeNull();
    no(HEADERS, [call({ name: "list_templates" })]);
    no(HEADERS, { ...call({ name: "list_templates" }), method: "tools/list" });
    no(HEADERS, { jsonrpc: "2.0", method: "tools/call", params: { name: "list_templates" } });
    no(HEADERS, { ...call({ name: "list_templates" }), id: null });
    no(HEADERS, { ...call({ name: "list_templates" }), jsonrpc: "1.0" });
    no(HEADERS, call({ name: "list_templates" }, { extra: true }));
    no(HEADERS, call({ name: "no_such_tool", arguments: {} }));
    no(HEADERS, call({ name: "list_templates", arguments: [] }));
    no(HEADERS, call({ name: "list_templates", _meta: { progressToken: 1 } }));
    no(HEADERS, call({ name: "list_templates", task: {} }));
    no({ ...HEADERS, accept: "application/json" }, call({ name: "list_templates" }));
    no({ ...HEADERS, "content-type": "text/plain" }, call({ name: "list_templates" }));
    no({ ...HEADERS, "mcp-protocol-version": "1999-01-01" }, call({ name: "list_templates" }));
  });
});

describe("the fast path answers as the SDK's server and transport do", () => {
  let served: ServedApp;
  let authorization: string;
  beforeAll(async () => {
    const world = createInMemoryDeps();
    const authenticator = createAuthenticator(world.deps);
    served = await serveOnFreePort(createMcpApp(world.deps, { authenticator }).fetch);
    authorization = (await bootstrapScenarioWorkspace(world, "fast-path", authenticator)).authorization;
  });
  afterAll(async () => {
    await served.close();
  });

  it("the same result, status and content type for a success and for a tool error, as a request the SDK handles (params with _meta)", async () => {
    const post = async (body: unknown) => {
      const res = await fetch(`${served.url}/mcp`, { method: "POST", headers: { ...HEADERS, authorization }, body: JSON.stringify(body) });
      return { status: res.status, type: res.headers.get("content-type"), cache: res.headers.get("cache-control"), body: (await res.json()) as { result: { structuredContent?: { request_id?: string } } } };
    };
    // A success (an administrative credential lists the accounts) and a tool error (it lacks scope get_template).
    for (const params of [{ name: "list_ai_accounts", arguments: {} }, { name: "get_template", arguments: { name: "note" } }]) {
      const fast = await post(call(params));
      const sdk = await post(call({ ...params, _meta: {} }));
      expect(fast.status).toBe(sdk.status);
      expect(fast.type).toContain("application/json");
      expect(sdk.type).toContain("application/json");
      expect(fast.cache).toBe("no-store");
      // Request ids differ per request (and are ULIDs like the record ids); the rest is the same.
      const scrub = (b: typeof fast.body) => JSON.parse(JSON.stringify(b).replace(/[0-9A-HJKMNP-TV-Z]{26}/g, "ULID")) as unknown;
      expect(scrub(fast.body)).toEqual(scrub(sdk.body));
    }
  });
});
