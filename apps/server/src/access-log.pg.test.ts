import { bootstrapWorkspace } from "@agentq/core";
import { TEST_SECRETS } from "@agentq/core/testing";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeService, type ComposedService } from "./compose.ts";
import { ACCESS_LOG_MESSAGE, createLogger } from "@agentq/runtime";

// The access log of the composed service (REST and MCP on one fetch handler over PostgreSQL),
// read back from the pino destination: one line per request with the request id the client got
// in X-Request-Id, the route pattern, the status and the caller, and never the token, the
// payload or the query string.
describe("the access log", () => {
  let db: TestSchema;
  let service: ComposedService;
  let written = "";
  let workspaceId: string;
  let adminToken: string;
  let aliceToken: string;
  let aliceId: string;

  // Recognizable text in every part of a request that must never reach the log.
  const PAYLOAD_CANARY = "payload-canary-7f3a9c";
  const QUERY_CANARY = "query-canary-51be02";

  beforeAll(async () => {
    db = await createTestSchema({ max: 3 });
    service = composeService({
      sql: db.sql,
      secrets: TEST_SECRETS,
      publicBaseUrl: "http://agentq.test",
      logger: createLogger("info", { write: (line: string) => void (written += line) }),
      rateLimiter: "off",
    });
    const boot = await bootstrapWorkspace(service.deps, { workspaceName: "logged", email: "owner@logged.test" });
    workspaceId = boot.workspace_id;
    adminToken = boot.token;
    const alice = await call(adminToken, "POST", "/v1/ai-accounts", { friendly_name: "alice" });
    aliceId = alice.body.id as string;
    await call(adminToken, "POST", "/v1/ai-accounts", { friendly_name: "bob" });
    const cred = await call(adminToken, "POST", "/v1/credentials", { ai_account_id: aliceId, tier: "operational", scopes: ["send", "get_pending"], name: "alice-laptop" });
    aliceToken = cred.body.token as string;
  });
  afterAll(async () => {
    await service.close();
    await db.drop();
  });

  let keys = 0;
  async function call(token: string, method: string, path: string, body?: unknown) {
    const res = await service.fetch(
      new Request(`http://agentq.test${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json", "Idempotency-Key": `k-${++keys}` }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    return { status: res.status, requestId: res.headers.get("X-Request-Id") ?? "", body: (await res.json()) as Record<string, any> };
  }

  const lines = () => written.split("\n").filter((l) => l !== "").map((l) => JSON.parse(l) as Record<string, unknown>);
  const lineOf = (requestId: string) => {
    const found = lines().filter((l) => l.msg === ACCESS_LOG_MESSAGE && l.request_id === requestId);
    expect(found).toHaveLength(1);
    return found[0] as Record<string, unknown>;
  };

  it("writes one info line per REST request, with the route pattern, status, duration, the X-Request-Id and the caller", async () => {
    const sent = await call(aliceToken, "POST", `/v1/messages/send?note=${QUERY_CANARY}`, { envelope: { recipient: { friendly_name: "bob" }, template: "note" }, payload: { text: PAYLOAD_CANARY } });
    expect(sent.status).toBe(201);
    expect(sent.requestId).not.toBe("");
    const line = lineOf(sent.requestId);
    expect(line).toMatchObject({ level: 30, msg: ACCESS_LOG_MESSAGE, method: "POST", route: "/v1/messages/send", status: 201, request_id: sent.requestId, workspace_id: workspaceId, ai_account_id: aliceId });
    expect(line.duration_ms).toEqual(expect.any(Number));
    expect(line).not.toHaveProperty("path");

    // A path with an id logs its pattern, not the id.
    const messageId = sent.body.message_id as string;
    const read = await call(aliceToken, "GET", `/v1/messages/${messageId}`);
    expect(lineOf(read.requestId)).toMatchObject({ method: "GET", route: "/v1/messages/:message_id", status: read.status });
    expect(JSON.stringify(lineOf(read.requestId))).not.toContain(messageId);

    // A refused credential: the line has the status, no caller, and not the token.
    const refused = await call(`${aliceToken}x`, "GET", "/v1/ai-accounts");
    expect(refused.status).toBe(401);
    const refusedLine = lineOf(refused.requestId);
    expect(refusedLine).toMatchObject({ route: "/v1/ai-accounts", status: 401 });
    expect(refusedLine).not.toHaveProperty("workspace_id");

    // No route: the path without its query string.
    const missing = await call(aliceToken, "GET", `/v1/no-such-thing/42?q=${QUERY_CANARY}`);
    expect(lineOf(missing.requestId)).toMatchObject({ method: "GET", route: null, path: "/v1/no-such-thing/42", status: 404 });
  });

  it("writes one line per MCP request too, never with the tool's arguments", async () => {
    const res = await service.fetch(
      new Request("http://agentq.test/mcp", {
        method: "POST",
        headers: { Authorization: `Bearer ${aliceToken}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "send", arguments: { recipient: { friendly_name: "bob" }, template: "note", payload: { text: PAYLOAD_CANARY } } } }),
      }),
    );
    expect(res.status).toBe(200);
    const result = (await res.json()) as { result: { isError?: boolean } };
    expect(result.result.isError).toBeFalsy();
    const requestId = res.headers.get("X-Request-Id") ?? "";
    expect(lineOf(requestId)).toMatchObject({ method: "POST", route: "/mcp", status: 200, workspace_id: workspaceId, ai_account_id: aliceId });
  });

  it("names every REST route by its own template, literal routes beside a parameter route included (the whole OpenAPI document)", async () => {
    const doc = (await (await service.fetch(new Request("http://agentq.test/v1/openapi.json"))).json()) as { paths: Record<string, Record<string, unknown>> };
    const routes = Object.entries(doc.paths).flatMap(([template, methods]) => Object.keys(methods).map((method) => ({ method: method.toUpperCase(), template })));
    expect(routes.length).toBeGreaterThan(100);
    const wrong: string[] = [];
    for (const { method, template } of routes) {
      // No credential: nothing changes, and the route still answers (401, 400, ...) and is logged.
      const path = template.replace(/\{[^}]+\}/g, "01JZZZZZZZZZZZZZZZZZZZZZZZ");
      const res = await service.fetch(new Request(`http://agentq.test${path}`, { method, redirect: "manual" }));
      await res.body?.cancel();
      const logged = lineOf(res.headers.get("X-Request-Id") ?? "").route;
      const expected = template.replace(/\{([^}]+)\}/g, ":$1");
      if (logged !== expected) wrong.push(`${method} ${template} logged as ${String(logged)}`);
    }
    expect(wrong).toEqual([]);
  });

  it("never carries a token, a payload, a query string or the Authorization header", () => {
    expect(lines().filter((l) => l.msg === ACCESS_LOG_MESSAGE).length).toBeGreaterThanOrEqual(8);
    for (const secret of [adminToken, aliceToken, PAYLOAD_CANARY, QUERY_CANARY, "Bearer"]) expect(written).not.toContain(secret);
    expect(written.toLowerCase()).not.toContain("authorization");
  });
});
