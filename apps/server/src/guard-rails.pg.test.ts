import { bootstrapWorkspace, listSanctionsScreen, sealAuditChains, verifyAuditExport } from "@agentq/core";
import { ManualClock, TEST_SECRETS } from "@agentq/core/testing";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeService, type ComposedService } from "./compose.ts";
import { createLogger } from "@agentq/runtime";

// Guard rails over PostgreSQL through the composed service (REST and MCP on one fetch handler):
// a rate limit shared by two instances on one database, the policy gate with its audit trail and
// chain verification, tampering reported by the verification route, the tools over MCP.
describe("guard rails on PostgreSQL", () => {
  let db: TestSchema;
  const clock = new ManualClock(new Date("2026-04-01T10:00:15.000Z"));
  let a: ComposedService;
  let b: ComposedService;
  let adminToken: string;
  let workspaceId: string;

  beforeAll(async () => {
    db = await createTestSchema({ max: 3 });
    const compose = () => composeService({ sql: db.connect({ max: 3 }), secrets: TEST_SECRETS, publicBaseUrl: "http://agentq.test", logger: createLogger("silent"), rateLimiter: "postgres", clock });
    a = compose();
    b = compose();
    const boot = await bootstrapWorkspace(a.deps, { workspaceName: "guard", email: "owner@guard.test" });
    adminToken = boot.token;
    workspaceId = boot.workspace_id;
  });
  afterAll(async () => {
    await a.close();
    await b.close();
    await db.drop();
  });

  let keys = 0;
  const call = async (app: ComposedService, token: string, method: string, path: string, body?: unknown) => {
    const res = await app.fetch(
      new Request(`http://agentq.test${path}`, {
        method,
        headers: { Authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "Content-Type": "application/json", "Idempotency-Key": `k-${++keys}` }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    );
    return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
  };
  const mcp = async (app: ComposedService, token: string, method: string, params: Record<string, unknown>, query = "") => {
    const res = await app.fetch(
      new Request(`http://agentq.test/mcp${query}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      }),
    );
    return (await res.json()) as { result: Record<string, any> };
  };

  const issue = async (name: string, scopes: string[]) => {
    const account = await call(a, adminToken, "POST", "/v1/ai-accounts", { friendly_name: name });
    expect(account.status).toBe(201);
    const cred = await call(a, adminToken, "POST", "/v1/credentials", { ai_account_id: account.body.id, tier: "operational", scopes, name: `${name}-laptop` });
    expect(cred.status).toBe(201);
    return cred.body.token as string;
  };

  it("publishes a required policy: a send is refused until it is acknowledged and accepted right after; the audit log shows both and the chain verifies; tampering is reported", async () => {
    const alice = await issue("alice", ["send", "get_policies", "acknowledge_policies", "view_audit_log"]);
    await issue("bob", ["get_pending"]);
    const published = await call(a, adminToken, "POST", "/v1/policies", { name: "acceptable-use", body: "Be kind to other agents.", required: true });
    expect(published.status).toBe(201);
    const send = { envelope: { recipient: { friendly_name: "bob" }, template: "note" }, payload: { text: "hello" } };

    const refused = await call(b, alice, "POST", "/v1/messages/send", send);
    expect(refused.status).toBe(409);
    expect(refused.body.error).toMatchObject({ code: "SVC_POLICY_NOT_ACKNOWLEDGED", details: { policies: [{ id: published.body.id, name: "acceptable-use", version: 1 }] } });
    expect(refused.headers.get("X-RateLimit-Limit")).toBe("600");

    const listed = await call(b, alice, "GET", "/v1/policies");
    expect(listed.body.items).toEqual([expect.objectContaining({ id: published.body.id, version: 1, required: true, acknowledged: false })]);
    const ack = await call(a, alice, "POST", `/v1/policies/${published.body.id as string}/acknowledge`, { version: 1 });
    expect(ack.status).toBe(200);
    const accepted = await call(b, alice, "POST", "/v1/messages/send", send);
    expect(accepted.status).toBe(201);

    expect(await sealAuditChains(a.deps)).toBeGreaterThan(0);
    const log = await call(a, alice, "GET", "/v1/audit-log?limit=100");
    const activities = (log.body.items as { activity: string }[]).map((r) => r.activity);
    expect(activities.slice(0, 4)).toEqual(["message.sent", "policy.acknowledged", "message.send_refused", "policy.published"]);
    const verified = await call(b, adminToken, "GET", "/v1/audit-log/verification");
    expect(verified.body).toMatchObject({ verified: true, first_bad_row: null });
    const head = verified.body.head as { seq: number };
    expect(head.seq).toBe(verified.body.checked);

    const exported: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await call(a, alice, "GET", `/v1/audit-log/chain?limit=5${cursor === null ? "" : `&cursor=${encodeURIComponent(cursor)}`}`);
      exported.push(...(page.body.items as unknown[]).map((i) => JSON.stringify(i)));
      cursor = page.body.next_cursor as string | null;
    } while (cursor !== null);
    expect(verifyAuditExport(exported)).toMatchObject({ ok: true, head: { seq: head.seq } });

    const sentRow = (log.body.items as { id: string; activity: string; seq: number }[]).find((r) => r.activity === "message.sent");
    await db.sql`update audit_log set details = jsonb_set(details, '{template}', '"directive"') where id = ${sentRow?.id ?? ""}`;
    const tampered = await call(b, alice, "GET", "/v1/audit-log/verification");
    expect(tampered.body).toMatchObject({ verified: false, head: { seq: head.seq }, first_bad_row: { id: sentRow?.id, seq: sentRow?.seq, reason: "changed" } });
  });

  it("shares the rate limit between two instances on one database: headers on every response, 429 SVC_RATE_LIMITED with Retry-After, MCP isError, refilled the next minute", async () => {
    await a.deps.stores.plans.setWorkspacePlan({ plan: { workspaceId, plan: "standard", overrides: { credentialRequestsPerMinute: 4 } }, now: clock.now() });
    clock.set(new Date("2026-04-01T10:05:20.000Z"));
    // Each instance caches limits for 30 s: let the cached ones run out.
    const token = await issue("carol", ["list_templates", "validate"]);
    clock.set(new Date("2026-04-01T10:06:20.000Z"));
    const remaining: (string | null)[] = [];
    for (const app of [a, b, a, b]) {
      const r = await call(app, token, "GET", "/v1/templates");
      expect(r.status).toBe(200);
      remaining.push(r.headers.get("X-RateLimit-Remaining"));
      expect(r.headers.get("X-RateLimit-Limit")).toBe("4");
      expect(r.headers.get("X-RateLimit-Reset")).toBe("40");
    }
    expect(remaining).toEqual(["3", "2", "1", "0"]);
    const limited = await call(b, token, "GET", "/v1/templates");
    expect(limited.status).toBe(429);
    expect(limited.body.error).toEqual({ code: "SVC_RATE_LIMITED", message: expect.any(String), details: { bucket: "credential", limit: 4, window: "PT1M" } });
    expect(limited.headers.get("Retry-After")).toBe("40");
    expect(limited.headers.get("X-RateLimit-Remaining")).toBe("0");
    // An empty bucket refuses before anything else (here: before the tier check).
    const tier = await call(a, token, "GET", "/v1/ai-accounts");
    expect(tier.status).toBe(429);

    const tool = await mcp(a, token, "tools/call", { name: "list_templates", arguments: {} });
    expect(tool.result).toMatchObject({ isError: true, structuredContent: { error: { code: "SVC_RATE_LIMITED" } } });

    clock.set(new Date("2026-04-01T10:07:00.000Z"));
    const refilled = await call(b, token, "GET", "/v1/templates");
    expect(refilled.status).toBe(200);
    expect(refilled.headers.get("X-RateLimit-Remaining")).toBe("3");
    expect(refilled.headers.get("X-RateLimit-Reset")).toBe("60");
    // A 4xx of the operation itself carries the headers too.
    const scope = await call(a, token, "GET", "/v1/ai-accounts");
    expect(scope.status).toBe(403);
    expect(scope.headers.get("X-RateLimit-Remaining")).toBe("2");
  });

  it("lists the guard-rail tools over MCP and the routes in the OpenAPI document", async () => {
    // An administrative credential is shown the admin toolset; the messaging one when it names it (tools/list shows what the caller may call).
    const names = async (token: string, query = "") => ((await mcp(a, token, "tools/list", {}, query)).result.tools as { name: string }[]).map((t) => t.name);
    expect(await names(adminToken)).toEqual(expect.arrayContaining(["publish_policy", "verify_audit_log", "export_audit_chain"]));
    expect(await names(adminToken, "?toolsets=messaging")).toEqual(expect.arrayContaining(["get_policies", "browse_audit_log"]));
    expect(await names(await issue("lister", ["get_policies", "acknowledge_policies"]))).toEqual(expect.arrayContaining(["get_policies", "acknowledge_policies"]));
    const openapi = (await (await a.fetch(new Request("http://agentq.test/v1/openapi.json"))).json()) as { paths: Record<string, Record<string, Record<string, unknown>>> };
    expect(openapi.paths["/v1/audit-log"]?.["get"]).toMatchObject({ operationId: "browse_audit_log", "x-agentq-scope": "view_audit_log", "x-agentq-scope-waived-for-tier": "administrative" });
    expect(openapi.paths["/v1/policies/{policy_id}/acknowledge"]?.["post"]).toMatchObject({ operationId: "acknowledge_policies", "x-agentq-scope": "acknowledge_policies" });
  });

  it("screens send participants with a sanctions list; caps messages per UTC month and AI accounts by plan", async () => {
    await a.deps.stores.plans.setWorkspacePlan({ plan: { workspaceId, plan: "standard", overrides: {} }, now: clock.now() });
    clock.advance(31_000);
    const screened = composeService({ sql: db.sql, secrets: TEST_SECRETS, publicBaseUrl: "http://agentq.test", logger: createLogger("silent"), rateLimiter: "off", clock, sanctions: listSanctionsScreen([{ name: "bob", status: "review" }]) });
    const dave = await issue("dave", ["send"]);
    const send = { envelope: { recipient: { friendly_name: "bob" }, template: "note" }, payload: { text: "hi" } };
    await call(a, adminToken, "POST", "/v1/policies", { name: "acceptable-use", body: "No longer required.", required: false });
    const refused = await call(screened, dave, "POST", "/v1/messages/send", send);
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({ code: "SVC_SANCTIONS_REVIEW_PENDING", details: { participant: "recipient" } });
    expect(refused.headers.get("X-RateLimit-Limit")).toBeNull();
    expect((await call(a, dave, "POST", "/v1/messages/send", send)).status).toBe(201);

    // The monthly message cap rolls at the UTC month boundary (injected clock), across instances.
    clock.set(new Date("2026-04-30T23:59:00.000Z"));
    const april = (await db.sql<{ n: number }[]>`select count(*)::int as n from audit_log where workspace_id = ${workspaceId} and activity = 'message.sent' and occurred_at >= '2026-04-01' and occurred_at < '2026-05-01'`)[0]?.n ?? 0;
    await a.deps.stores.plans.setWorkspacePlan({ plan: { workspaceId, plan: "standard", overrides: { messagesPerMonth: april + 1 } }, now: clock.now() });
    expect((await call(a, dave, "POST", "/v1/messages/send", send)).status).toBe(201);
    const capped = await call(b, dave, "POST", "/v1/messages/send", send);
    expect(capped.status).toBe(403);
    expect(capped.body.error).toMatchObject({ code: "SVC_PLAN_LIMIT_EXCEEDED", details: { limit: "messages_per_month", cap: april + 1, used: april + 1, month: "2026-04", resets_at: "2026-05-01T00:00:00.000Z" } });
    clock.set(new Date("2026-04-30T23:59:59.999Z"));
    expect((await call(a, dave, "POST", "/v1/messages/send", send)).status).toBe(403);
    clock.set(new Date("2026-05-01T00:00:00.000Z"));
    expect((await call(b, dave, "POST", "/v1/messages/send", send)).status).toBe(201);

    const live = (await db.sql<{ n: number }[]>`select count(*)::int as n from ai_accounts where workspace_id = ${workspaceId} and state <> 'revoked'`)[0]?.n ?? 0;
    await a.deps.stores.plans.setWorkspacePlan({ plan: { workspaceId, plan: "standard", overrides: { aiAccounts: live } }, now: clock.now() });
    clock.advance(31_000);
    const accountCapped = await call(a, adminToken, "POST", "/v1/ai-accounts", { friendly_name: "erin" });
    expect(accountCapped.status).toBe(403);
    expect(accountCapped.body.error).toMatchObject({ code: "SVC_PLAN_LIMIT_EXCEEDED", details: { limit: "ai_accounts", cap: live, used: live } });
  });
});
