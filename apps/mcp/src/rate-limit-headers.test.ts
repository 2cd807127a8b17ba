import { InProcessRateLimiter } from "@agentq/core";
import { bootstrapScenarioWorkspace, createInMemoryDeps } from "@agentq/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpApp } from "./create-mcp-app.ts";
import { serveOnFreePort } from "./testing/http-harness.ts";
import type { ServedApp } from "./testing/http-harness.ts";

let served: ServedApp;
let authorization: string;

beforeAll(async () => {
  const world = createInMemoryDeps();
  world.deps.rateLimiter = new InProcessRateLimiter();
  const ws = await bootstrapScenarioWorkspace(world, "mcp-rate");
  authorization = ws.authorization;
  await world.deps.stores.plans.setWorkspacePlan({ plan: { workspaceId: ws.workspace_id, plan: "free", overrides: { credentialRequestsPerMinute: 2 } }, now: world.clock.now() });
  served = await serveOnFreePort(createMcpApp(world.deps).fetch);
});
afterAll(async () => {
  await served.close();
});

function callTool(id: number): Promise<Response> {
  return fetch(`${served.url}/mcp`, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: authorization, "Mcp-Protocol-Version": "2025-06-18" },
    body: JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name: "get_workspace", arguments: {} } }),
  });
}

describe("rate limits over MCP", () => {
  it("sends X-RateLimit-* for counted tool calls and refuses past the bucket with SVC_RATE_LIMITED and the retry delay in _meta", async () => {
    const first = await callTool(1);
    expect(first.headers.get("x-ratelimit-limit")).toBe("2");
    expect(first.headers.get("x-ratelimit-remaining")).toBe("1");
    expect(Number(first.headers.get("x-ratelimit-reset"))).toBeGreaterThan(0);
    await callTool(2);
    const third = await callTool(3);
    expect(third.status).toBe(200);
    expect(third.headers.get("x-ratelimit-remaining")).toBe("0");
    const body = (await third.json()) as { result: { isError: boolean; structuredContent: { error: { code: string } }; _meta: Record<string, unknown> } };
    expect(body.result.isError).toBe(true);
    expect(body.result.structuredContent.error.code).toBe("SVC_RATE_LIMITED");
    expect(body.result._meta["agentq/retry_after_seconds"]).toEqual(expect.any(Number));
  });

  it("sends no X-RateLimit-* on a request that runs no tool (tools/list is not counted)", async () => {
    const res = await fetch(`${served.url}/mcp`, {
      method: "POST",
      headers: { "Content-Type": "application/json", Accept: "application/json, text/event-stream", Authorization: authorization, "Mcp-Protocol-Version": "2025-06-18" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-ratelimit-limit")).toBeNull();
  });
});
