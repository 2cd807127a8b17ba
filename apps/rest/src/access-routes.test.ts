import { createInMemoryDeps, bootstrapScenarioWorkspace, seedTokenCredential } from "@agentq/core/testing";
import type { InMemoryWorld, AccessScenarioWorkspace } from "@agentq/core/testing";
import { beforeEach, describe, expect, it } from "vitest";
import { createRestApp } from "./app.ts";
import { call } from "./testing/call.ts";
import { recordingLogger } from "./testing/test-app.ts";

let world: InMemoryWorld;
let app: ReturnType<typeof createRestApp>;
let a: AccessScenarioWorkspace;
let b: AccessScenarioWorkspace;
let logger: ReturnType<typeof recordingLogger>;

beforeEach(async () => {
  world = createInMemoryDeps();
  logger = recordingLogger();
  app = createRestApp(world.deps, { logger });
  a = await bootstrapScenarioWorkspace(world, "alpha");
  b = await bootstrapScenarioWorkspace(world, "beta");
});

async function createAccount(ws: AccessScenarioWorkspace, name: string): Promise<string> {
  const res = await call(app, "POST", "/v1/ai-accounts", { authorization: ws.authorization, body: { friendly_name: name } });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

async function issue(ws: AccessScenarioWorkspace, accountId: string, scopes: string[], tier = "operational"): Promise<{ id: string; authorization: string; status: number }> {
  const res = await call(app, "POST", "/v1/credentials", { authorization: ws.authorization, body: { ai_account_id: accountId, tier, scopes, name: "test" } });
  return { id: res.body?.credential?.id as string, authorization: `Bearer ${res.body?.token as string}`, status: res.status };
}

describe("access routes end to end", () => {
  it("creates, lists, reads, renames, freezes, unfreezes and revokes AI accounts", async () => {
    const id = await createAccount(a, "alice");
    const list = await call(app, "GET", "/v1/ai-accounts?limit=1", { authorization: a.authorization });
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(1);
    expect(typeof list.body.next_cursor).toBe("string");
    const page2 = await call(app, "GET", `/v1/ai-accounts?limit=1&cursor=${encodeURIComponent(list.body.next_cursor as string)}`, { authorization: a.authorization });
    expect(page2.status).toBe(200);
    const names = [...list.body.items, ...page2.body.items].map((x: { friendly_name: string }) => x.friendly_name);
    expect(names).toEqual(["admin", "alice"]);
    const changedFilter = await call(app, "GET", `/v1/ai-accounts?limit=1&state=frozen&cursor=${encodeURIComponent(list.body.next_cursor as string)}`, { authorization: a.authorization });
    expect(changedFilter.body.error.code).toBe("SVC_CURSOR_EXPIRED");
    expect((await call(app, "GET", "/v1/ai-accounts?limit=ten", { authorization: a.authorization })).body.error.code).toBe("SVC_MALFORMED_REQUEST");
    expect((await call(app, "GET", `/v1/ai-accounts/${id}`, { authorization: a.authorization })).body).toEqual(expect.objectContaining({ id, friendly_name: "alice", state: "active" }));
    expect((await call(app, "PATCH", `/v1/ai-accounts/${id}`, { authorization: a.authorization, body: { friendly_name: "alice2" } })).body.friendly_name).toBe("alice2");
    expect((await call(app, "POST", `/v1/ai-accounts/${id}/freeze`, { authorization: a.authorization })).body.error.code).toBe("SVC_IDEMPOTENCY_KEY_REQUIRED");
    expect((await call(app, "POST", `/v1/ai-accounts/${id}/freeze`, { authorization: a.authorization, key: "f1" })).body.state).toBe("frozen");
    expect((await call(app, "POST", `/v1/ai-accounts/${id}/unfreeze`, { authorization: a.authorization })).body.state).toBe("active");
    expect((await call(app, "POST", `/v1/ai-accounts/${id}/revoke`, { authorization: a.authorization, key: "r1" })).body.state).toBe("revoked");
  });

  it("issues a credential that works at once, rotates it, and revocation bites on the next request", async () => {
    const alice = await createAccount(a, "alice");
    const cred = await issue(a, alice, ["send", "get_pending", "ack"]);
    expect(cred.status).toBe(201);
    expect(cred.authorization).toMatch(/^Bearer agq_op_/);
    const me = await call(app, "GET", "/v1/me", { authorization: cred.authorization });
    expect(me.status).toBe(200);
    expect(me.body.ai_account.id).toBe(alice);
    expect(me.text).not.toContain("token_hash");

    const listed = await call(app, "GET", `/v1/credentials?ai_account_id=${alice}`, { authorization: a.authorization });
    expect(listed.body.items.map((c: { id: string }) => c.id)).toEqual([cred.id]);
    expect(listed.text).not.toContain(cred.authorization.slice("Bearer ".length));
    expect((await call(app, "GET", `/v1/credentials/${cred.id}`, { authorization: a.authorization })).body.id).toBe(cred.id);

    const rotated = await call(app, "POST", `/v1/credentials/${cred.id}/rotate`, { authorization: a.authorization, key: "rot-1", body: { overlap_window: "PT1S" } });
    expect(rotated.status).toBe(201);
    const successor = `Bearer ${rotated.body.token as string}`;
    expect((await call(app, "GET", "/v1/me", { authorization: successor })).status).toBe(200);
    expect((await call(app, "GET", "/v1/me", { authorization: cred.authorization })).status).toBe(200);
    world.clock.advance(2_000);
    expect((await call(app, "GET", "/v1/me", { authorization: cred.authorization })).body.error.code).toBe("SVC_UNAUTHENTICATED");

    const revoked = await call(app, "POST", `/v1/credentials/${rotated.body.credential.id as string}/revoke`, { authorization: a.authorization, key: "rev-1" });
    expect(revoked.status).toBe(200);
    expect((await call(app, "GET", "/v1/me", { authorization: successor })).body.error.code).toBe("SVC_UNAUTHENTICATED");
    const again = await call(app, "POST", `/v1/credentials/${rotated.body.credential.id as string}/revoke`, { authorization: a.authorization, key: "rev-2" });
    expect(again.body.error.code).toBe("SVC_RESOURCE_CONFLICT");
  });

  it("freezing an account bites on its very next request", async () => {
    const alice = await createAccount(a, "alice");
    const cred = await issue(a, alice, ["send"]);
    expect((await call(app, "GET", "/v1/me", { authorization: cred.authorization })).status).toBe(200);
    await call(app, "POST", `/v1/ai-accounts/${alice}/freeze`, { authorization: a.authorization, key: "f" });
    const frozen = await call(app, "GET", "/v1/me", { authorization: cred.authorization });
    expect(frozen.status).toBe(403);
    expect(frozen.body.error.code).toBe("SVC_FROZEN");
  });

  it("replays an issue with the same key byte for byte and refuses another body with 409", async () => {
    const alice = await createAccount(a, "alice");
    const body = { ai_account_id: alice, tier: "operational", scopes: ["send"], name: "laptop" };
    const first = await call(app, "POST", "/v1/credentials", { authorization: a.authorization, key: "issue-1", body });
    const replay = await call(app, "POST", "/v1/credentials", { authorization: a.authorization, key: "issue-1", body: { name: "laptop", scopes: ["send"], tier: "operational", ai_account_id: alice } });
    expect(first.status).toBe(201);
    expect(replay.status).toBe(201);
    expect(replay.text).toBe(first.text);
    const conflict = await call(app, "POST", "/v1/credentials", { authorization: a.authorization, key: "issue-1", body: { ...body, name: "other" } });
    expect(conflict.status).toBe(409);
    expect(conflict.body.error.code).toBe("SVC_IDEMPOTENCY_CONFLICT");
    expect(conflict.body.error.details.original_request_id).toBe(first.headers.get("x-request-id"));
  });

  it("treats the same key on a different endpoint as a conflict", async () => {
    const alice = await createAccount(a, "alice");
    expect((await call(app, "POST", `/v1/ai-accounts/${alice}/freeze`, { authorization: a.authorization, key: "shared" })).status).toBe(200);
    const other = await call(app, "POST", `/v1/ai-accounts/${alice}/unfreeze`, { authorization: a.authorization, key: "shared" });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe("SVC_IDEMPOTENCY_CONFLICT");
  });

  it("refuses by tier and by scope", async () => {
    const alice = await createAccount(a, "alice");
    const op = await issue(a, alice, ["send"]);
    for (const [method, path] of [["GET", "/v1/ai-accounts"], ["POST", "/v1/ai-accounts"], ["GET", "/v1/credentials"], ["POST", "/v1/credentials"], ["GET", `/v1/ai-accounts/${alice}`]] as const) {
      const res = await call(app, method, path, { authorization: op.authorization, ...(method === "POST" ? { body: {} } : {}) });
      expect(res.status, `${method} ${path}`).toBe(403);
      expect(res.body.error.code).toBe("SVC_TIER_INSUFFICIENT");
    }
    const narrow = await seedTokenCredential(world, { id: a.ai_account_id, workspaceId: a.workspace_id }, { tier: "administrative", scopes: ["manage_ai_accounts"] });
    const refused = await call(app, "POST", "/v1/credentials", { authorization: narrow.authorization, body: { ai_account_id: alice, tier: "operational", scopes: ["send"], name: "x" } });
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe("SVC_SCOPE_INSUFFICIENT");
    const noScope = await seedTokenCredential(world, { id: a.ai_account_id, workspaceId: a.workspace_id }, { tier: "administrative", scopes: [] });
    expect((await call(app, "POST", "/v1/ai-accounts", { authorization: noScope.authorization, body: { friendly_name: "zed" } })).body.error.code).toBe("SVC_SCOPE_INSUFFICIENT");
    expect((await call(app, "GET", "/v1/ai-accounts", { authorization: noScope.authorization })).status).toBe(200);
  });

  it("refuses every id-bearing route on another workspace's records with 404 or 403, never data", async () => {
    const alice = await createAccount(a, "alice");
    const cred = await issue(a, alice, ["send"]);
    const routes: [string, string, unknown?][] = [
      ["GET", `/v1/ai-accounts/${alice}`],
      ["PATCH", `/v1/ai-accounts/${alice}`, { friendly_name: "stolen" }],
      ["POST", `/v1/ai-accounts/${alice}/freeze`],
      ["POST", `/v1/ai-accounts/${alice}/unfreeze`],
      ["POST", `/v1/ai-accounts/${alice}/revoke`],
      ["GET", `/v1/credentials/${cred.id}`],
      ["POST", `/v1/credentials/${cred.id}/rotate`, { overlap_window: "PT1S" }],
      ["POST", `/v1/credentials/${cred.id}/revoke`],
      ["POST", "/v1/credentials", { ai_account_id: alice, tier: "operational", scopes: ["send"], name: "x" }],
    ];
    for (const [method, path, body] of routes) {
      const res = await call(app, method, path, { authorization: b.authorization, key: `x-${method}-${path}`, ...(body === undefined ? {} : { body }) });
      expect([403, 404], `${method} ${path}`).toContain(res.status);
      expect(res.text).not.toContain("alice");
    }
    const listed = await call(app, "GET", `/v1/credentials?ai_account_id=${alice}`, { authorization: b.authorization });
    expect(listed.status === 200 ? listed.body.items : []).toEqual([]);
    const accounts = await call(app, "GET", "/v1/ai-accounts", { authorization: b.authorization });
    expect(accounts.body.items.map((x: { id: string }) => x.id)).not.toContain(alice);
    // Nothing changed in workspace A.
    expect((await call(app, "GET", `/v1/ai-accounts/${alice}`, { authorization: a.authorization })).body).toEqual(expect.objectContaining({ friendly_name: "alice", state: "active" }));
    expect((await call(app, "GET", "/v1/me", { authorization: cred.authorization })).status).toBe(200);
  });

  it("answers GET /v1/workspaces/me with the caller's workspace", async () => {
    const res = await call(app, "GET", "/v1/workspaces/me", { authorization: a.authorization });
    expect(res.status).toBe(200);
    expect(res.body.id).toBe(a.workspace_id);
    expect(logger.entries).toEqual([]);
  });
});
