import { bootstrapWorkspace, OPERATIONAL_SCOPES } from "@agentq/core";
import { TEST_SECRETS } from "@agentq/core/testing";
import { serveOnFreePort, type ServedApp } from "@agentq/mcp/testing";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeService, type ComposedService } from "./compose.ts";
import { createLogger } from "@agentq/runtime";
import { seedPerson, signInPerson } from "./testing/people.ts";

// Issue 25, item 4 (DESIGN §2c "Hostile input"): a string with U+0000 or a lone surrogate, in a
// body, a query parameter or a form field, gets 400 SVC_MALFORMED_REQUEST naming it in
// details.errors[].path, on every edge (REST operations, the people routes, MCP, the dashboard's
// forms and pages, OAuth), and never a retryable 503 with a server fault in the log. The composed
// server over PostgreSQL, over real HTTP.

type Json = Record<string, any>;

const NUL = "x\u0000y";
const LONE_HIGH = "x\ud800";
const LONE_LOW = "\udc00x";
const PASSWORD = "a long and quiet river";

describe("strings PostgreSQL cannot store (U+0000, lone surrogates)", () => {
  let db: TestSchema;
  let service: ComposedService;
  let served: ServedApp;
  let written = "";
  let admin = "";
  let agent = "";
  let cookie = "";

  beforeAll(async () => {
    db = await createTestSchema({ max: 5 });
    // The public base URL names the port (the dashboard's origin check), known once the socket listens.
    served = await serveOnFreePort((request) => service.fetch(request));
    service = composeService({ sql: db.sql, secrets: TEST_SECRETS, publicBaseUrl: served.url, logger: createLogger("info", { write: (line: string) => void (written += line) }), rateLimiter: "off" });
    const boot = await bootstrapWorkspace(service.deps, { workspaceName: "hostile", email: "owner@hostile.test" });
    admin = boot.token;
    const account = await ok(admin, "POST", "/v1/ai-accounts", { friendly_name: "worker" });
    agent = (await ok(admin, "POST", "/v1/credentials", { ai_account_id: account.id, tier: "operational", scopes: OPERATIONAL_SCOPES, name: "worker-box" })).token as string;
    await ok(agent, "POST", "/v1/projects", { name: "alpha" });
    await seedPerson(service.deps, { workspaceId: boot.workspace_id, email: "ada@hostile.test", role: "owner", password: PASSWORD });
    cookie = (await signInPerson(served.url, { email: "ada@hostile.test", password: PASSWORD })).cookie;
  });
  afterAll(async () => {
    await served?.close();
    await service?.close();
    await db?.drop();
  });

  let keys = 0;
  async function rest(token: string | null, method: string, path: string, body?: unknown): Promise<{ status: number; body: Json }> {
    const res = await fetch(`${served.url}${path}`, {
      method,
      headers: { ...(token === null ? {} : { Authorization: `Bearer ${token}` }), ...(body === undefined ? {} : { "Content-Type": "application/json", "Idempotency-Key": `k-${++keys}` }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await res.text();
    return { status: res.status, body: text === "" ? {} : (JSON.parse(text) as Json) };
  }
  async function ok(token: string, method: string, path: string, body?: unknown): Promise<Json> {
    const r = await rest(token, method, path, body);
    expect(r.status, `${method} ${path}: ${JSON.stringify(r.body)}`).toBeLessThan(300);
    return r.body;
  }
  const serverFaults = () => written.split("\n").filter((l) => l !== "" && (JSON.parse(l) as { level: number }).level >= 50);

  const send = (payload: unknown, envelope: Json = {}) => ({ envelope: { recipient: { friendly_name: "worker" }, template: "note", ...envelope }, payload });

  // [what, caller, method, path, body, the path the refusal names]
  const cases: [string, "none" | "admin" | "agent", string, string, unknown, string][] = [
    ["sign-in, email", "none", "POST", "/v1/auth/sign-in", { email: `a${NUL}@hostile.test`, password: PASSWORD }, "/email"],
    ["sign-up, workspace_name", "none", "POST", "/v1/auth/sign-up", { email: "new@hostile.test", password: PASSWORD, workspace_name: NUL }, "/workspace_name"],
    ["sign-up, email", "none", "POST", "/v1/auth/sign-up", { email: `${LONE_HIGH}@hostile.test`, password: PASSWORD, workspace_name: "w" }, "/email"],
    ["password reset, email", "none", "POST", "/v1/auth/password-reset", { email: `a${NUL}@hostile.test` }, "/email"],
    ["decision search, q", "agent", "GET", "/v1/decision-log/search?q=%00", undefined, "/q"],
    ["message list, recipient", "agent", "GET", "/v1/messages?recipient=%00", undefined, "/recipient"],
    ["an undeclared query parameter", "admin", "GET", "/v1/ai-accounts?note=%00", undefined, "/note"],
    ["decision title", "agent", "POST", "/v1/decision-log", { title: LONE_HIGH, decision_md: "d" }, "/title"],
    ["backlog title", "agent", "POST", "/v1/backlog", { title: NUL }, "/title"],
    ["lesson body", "agent", "POST", "/v1/lessons", { title: "t", body_md: LONE_LOW }, "/body_md"],
    ["project name", "agent", "POST", "/v1/projects", { name: NUL }, "/name"],
    ["policy body", "admin", "POST", "/v1/policies", { name: "conduct", body: NUL }, "/body"],
    ["credential name", "admin", "POST", "/v1/credentials", { ai_account_id: "01JZZZZZZZZZZZZZZZZZZZZZZZ", tier: "operational", scopes: ["send"], name: LONE_HIGH }, "/name"],
    ["send, a payload string (jsonb)", "agent", "POST", "/v1/messages/send", send({ text: NUL }), "/payload/text"],
    ["send, a payload string with a lone surrogate (jsonb)", "agent", "POST", "/v1/messages/send", send({ items: ["ok", LONE_LOW] }), "/payload/items/1"],
    ["send, a payload key", "agent", "POST", "/v1/messages/send", send({ [`k${NUL}`]: 1 }), "/payload"],
    ["send, correlation_id", "agent", "POST", "/v1/messages/send", send({ text: "hi" }, { correlation_id: NUL }), "/envelope/correlation_id"],
    ["a path parameter", "agent", "GET", "/v1/decision-log/%00", undefined, "/decision_id"],
  ];

  it.each(cases)("%s: 400 SVC_MALFORMED_REQUEST naming the string, no server fault", async (_what, caller, method, path, body, errorPath) => {
    const token = caller === "none" ? null : caller === "admin" ? admin : agent;
    const before = serverFaults().length;
    const r = await rest(token, method, path, body);
    expect(r.status, JSON.stringify(r.body)).toBe(400);
    expect(r.body.error.code).toBe("SVC_MALFORMED_REQUEST");
    expect((r.body.error.details.errors as { path: string }[]).map((e) => e.path)).toContain(errorPath);
    expect(serverFaults().length).toBe(before);
  });

  it("a person route with U+0000 in its path id: 400 SVC_MALFORMED_REQUEST (the database's refusal of the value), never 503", async () => {
    const before = serverFaults().length;
    for (const method of ["PATCH", "DELETE"]) {
      const res = await fetch(`${served.url}/v1/people/a%00b`, { method, headers: { Cookie: cookie, Origin: served.url, "Content-Type": "application/json" }, ...(method === "PATCH" ? { body: JSON.stringify({ role: "viewer" }) } : {}) });
      const body = (await res.json()) as Json;
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(body.error.code).toBe("SVC_MALFORMED_REQUEST");
    }
    expect(serverFaults().length).toBe(before);
  });

  it("an MCP tool call: an isError result with SVC_MALFORMED_REQUEST naming the argument", async () => {
    const res = await fetch(`${served.url}/mcp`, {
      method: "POST",
      headers: { Authorization: `Bearer ${agent}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "record_decision", arguments: { title: NUL, decision_md: "d" } } }),
    });
    const result = ((await res.json()) as { result: { isError?: boolean; structuredContent: Json } }).result;
    expect(result.isError).toBe(true);
    expect(result.structuredContent.error.code).toBe("SVC_MALFORMED_REQUEST");
    expect((result.structuredContent.error.details.errors as { path: string }[]).map((e) => e.path)).toContain("/title");
  });

  it("the dashboard: a form field or a query parameter with U+0000 is a 400 page naming SVC_MALFORMED_REQUEST", async () => {
    const before = serverFaults().length;
    const form = await fetch(`${served.url}/sign-in`, { method: "POST", headers: { Origin: served.url, "Content-Type": "application/x-www-form-urlencoded", Accept: "text/html" }, body: new URLSearchParams({ email: `a${NUL}@hostile.test`, password: PASSWORD }).toString(), redirect: "manual" });
    expect(form.status).toBe(400);
    expect(await form.text()).toContain("SVC_MALFORMED_REQUEST");
    const page = await fetch(`${served.url}/messages?recipient=%00`, { headers: { Cookie: cookie, Accept: "text/html" }, redirect: "manual" });
    expect(page.status).toBe(400);
    expect(await page.text()).toContain("SVC_MALFORMED_REQUEST");
    expect(serverFaults().length).toBe(before);
  });

  it("OAuth: a registration or a token request with such a string is 400 SVC_MALFORMED_REQUEST naming the field", async () => {
    const before = serverFaults().length;
    const reg = await fetch(`${served.url}/oauth/register`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ client_name: LONE_HIGH, redirect_uris: ["http://127.0.0.1/callback"] }) });
    const regBody = (await reg.json()) as Json;
    expect(reg.status, JSON.stringify(regBody)).toBe(400);
    expect(regBody.error.code).toBe("SVC_MALFORMED_REQUEST");
    expect(regBody.error.details.errors[0].path).toBe("/client_name");
    const token = await fetch(`${served.url}/oauth/token`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ grant_type: "refresh_token", refresh_token: "r", client_id: NUL }).toString() });
    const tokenBody = (await token.json()) as Json;
    expect(token.status, JSON.stringify(tokenBody)).toBe(400);
    expect(tokenBody.error.code).toBe("SVC_MALFORMED_REQUEST");
    expect(tokenBody.error.details.errors[0].path).toBe("/client_id");
    expect(serverFaults().length).toBe(before);
  });
});
