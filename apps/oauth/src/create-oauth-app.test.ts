import { createAuthenticator, type Authenticator } from "@agentq/core";
import { approveForTest, createMessagingScenario, seedPrincipal, seedTestWorkspace, TEST_PUBLIC_BASE_URL, TEST_REDIRECT_URI, type MessagingScenario } from "@agentq/core/testing";
import { beforeEach, describe, expect, it } from "vitest";
import { createOAuthApp } from "./create-oauth-app.ts";

const ORIGIN = "http://inspector.example:6274";

describe("the OAuth endpoints over HTTP (in memory)", () => {
  let s: MessagingScenario;
  let app: ReturnType<typeof createOAuthApp>;
  let auth: Authenticator;

  beforeEach(async () => {
    s = await createMessagingScenario();
    auth = createAuthenticator(s.world.deps);
    s.world.deps.credentialCache = auth;
    app = createOAuthApp(s.world.deps, { publicBaseUrl: `${TEST_PUBLIC_BASE_URL}/` });
  });

  const form = (path: string, params: Record<string, string>, headers: Record<string, string> = {}) =>
    app.request(path, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", ...headers }, body: new URLSearchParams(params).toString() });
  const register = async (body: Record<string, unknown> = {}) => {
    const res = await app.request("/oauth/register", { method: "POST", headers: { "Content-Type": "application/json", Origin: ORIGIN }, body: JSON.stringify({ client_name: "Inspector", redirect_uris: [TEST_REDIRECT_URI], ...body }) });
    return { res, body: (await res.json()) as Record<string, any> };
  };
  const connect = async (workspaceId = s.alice.workspace.id, aiAccountId = s.alice.account.id) => {
    const { body: client } = await register();
    const stored = await s.world.deps.stores.oauth.findClient({ clientId: client.client_id });
    const { code, verifier } = await approveForTest(s.world.deps, { client: stored!, workspaceId, aiAccountId });
    const res = await form("/oauth/token", { grant_type: "authorization_code", client_id: client.client_id, code, redirect_uri: TEST_REDIRECT_URI, code_verifier: verifier, resource: `${TEST_PUBLIC_BASE_URL}/mcp` });
    return { clientId: client.client_id as string, res, tokens: (await res.json()) as Record<string, any> };
  };

  it("serves RFC 8414 metadata whose issuer is the base URL's origin, with open CORS", async () => {
    const res = await app.request("/.well-known/oauth-authorization-server", { headers: { Origin: ORIGIN } });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(await res.json()).toEqual({
      issuer: "http://127.0.0.1:8080",
      authorization_endpoint: "http://127.0.0.1:8080/oauth/authorize",
      token_endpoint: "http://127.0.0.1:8080/oauth/token",
      registration_endpoint: "http://127.0.0.1:8080/oauth/register",
      revocation_endpoint: "http://127.0.0.1:8080/oauth/revoke",
      response_types_supported: ["code"],
      response_modes_supported: ["query"],
      grant_types_supported: ["authorization_code", "refresh_token"],
      code_challenge_methods_supported: ["S256"],
      token_endpoint_auth_methods_supported: ["none"],
      revocation_endpoint_auth_methods_supported: ["none"],
      scopes_supported: expect.arrayContaining(["send", "get_pending", "ack"]),
      authorization_response_iss_parameter_supported: true,
    });
  });

  it("answers CORS preflights of register, token and revoke", async () => {
    for (const path of ["/oauth/register", "/oauth/token", "/oauth/revoke"]) {
      const res = await app.request(path, { method: "OPTIONS", headers: { Origin: ORIGIN, "Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "content-type" } });
      expect(res.status, path).toBe(204);
      expect(res.headers.get("access-control-allow-origin"), path).toBe("*");
      expect(res.headers.get("access-control-allow-methods"), path).toContain("POST");
    }
  });

  it("registers a public client: 201, no-store, CORS, the auth method coerced to none", async () => {
    const { res, body } = await register({ token_endpoint_auth_method: "client_secret_post", redirect_uris: [TEST_REDIRECT_URI, "http://evil.example/cb"] });
    expect(res.status).toBe(201);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    expect(body).toMatchObject({ client_name: "Inspector", redirect_uris: [TEST_REDIRECT_URI], token_endpoint_auth_method: "none", grant_types: ["authorization_code", "refresh_token"] });
    expect(body.client_id).toMatch(/^[0-9A-Z]{26}$/);
    expect(body).not.toHaveProperty("client_secret");
  });

  it("refuses registrations that are not JSON objects or have no acceptable redirect URI", async () => {
    const post = (body: string, type = "application/json") => app.request("/oauth/register", { method: "POST", headers: { "Content-Type": type }, body });
    const cases: [Response, string][] = [
      [await post("{not json"), "invalid_client_metadata"],
      [await post("[]"), "invalid_client_metadata"],
      [await post(JSON.stringify({ redirect_uris: ["http://a.example/cb"] })), "invalid_redirect_uri"],
      [await post(JSON.stringify({ redirect_uris: [TEST_REDIRECT_URI] }), "text/plain"), "invalid_client_metadata"],
    ];
    for (const [res, code] of cases) {
      expect(res.status).toBe(400);
      expect(((await res.json()) as { error: string }).error).toBe(code);
    }
  });

  it("exchanges a code: 200, application/json, no-store; the access token authenticates as the chosen account", async () => {
    const { res, tokens } = await connect();
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(res.headers.get("pragma")).toBe("no-cache");
    expect(tokens).toMatchObject({ token_type: "Bearer", expires_in: 3600 });
    expect((await auth.authenticate(`Bearer ${tokens.access_token as string}`)).account.id).toBe(s.alice.account.id);
  });

  it("refreshes with rotation; the client_id may come from HTTP Basic; a replay revokes the grant", async () => {
    const { clientId, tokens } = await connect();
    const basic = `Basic ${btoa(`${encodeURIComponent(clientId)}:ignored`)}`;
    const next = await form("/oauth/token", { grant_type: "refresh_token", refresh_token: tokens.refresh_token }, { Authorization: basic });
    expect(next.status).toBe(200);
    const replay = await form("/oauth/token", { grant_type: "refresh_token", client_id: clientId, refresh_token: tokens.refresh_token });
    expect(replay.status).toBe(400);
    expect(await replay.json()).toMatchObject({ error: "invalid_grant" });
    const after = (await next.json()) as { refresh_token: string };
    expect(((await (await form("/oauth/token", { grant_type: "refresh_token", client_id: clientId, refresh_token: after.refresh_token })).json()) as { error: string }).error).toBe("invalid_grant");
  });

  it("gives an unknown client 401 invalid_client (so it registers again), and other refusals 400 with their OAuth code", async () => {
    const unknown = await form("/oauth/token", { grant_type: "refresh_token", client_id: "01JZZZZZZZZZZZZZZZZZZZZZZZ", refresh_token: "agq_rt_x" });
    expect(unknown.status).toBe(401);
    expect(await unknown.json()).toMatchObject({ error: "invalid_client" });
    const basicUnknown = await form("/oauth/token", { grant_type: "refresh_token", refresh_token: "agq_rt_x" }, { Authorization: `Basic ${btoa("nobody:x")}` });
    expect(basicUnknown.status).toBe(401);
    expect(basicUnknown.headers.get("www-authenticate")).toMatch(/^Basic /);
    const { clientId } = await connect();
    const cases: [Response, string][] = [
      [await app.request("/oauth/token", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ grant_type: "refresh_token" }) }), "invalid_request"],
      [await app.request("/oauth/token", { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: "grant_type=refresh_token&grant_type=refresh_token" }), "invalid_request"],
      [await form("/oauth/token", { grant_type: "password", client_id: clientId }), "unsupported_grant_type"],
      [await form("/oauth/token", { grant_type: "refresh_token", client_id: clientId, refresh_token: "agq_rt_x", resource: "https://elsewhere.example/mcp" }), "invalid_target"],
      [await form("/oauth/token", { grant_type: "refresh_token", client_id: clientId }), "invalid_request"],
      [await form("/oauth/token", { grant_type: "refresh_token", client_id: clientId, refresh_token: "agq_rt_x" }), "invalid_grant"],
    ];
    for (const [res, code] of cases) {
      expect(res.status, code).toBe(400);
      expect(res.headers.get("cache-control")).toBe("no-store");
      expect(((await res.json()) as { error: string }).error).toBe(code);
    }
  });

  it("revokes (RFC 7009): always 200 for any token; a refresh token ends the grant", async () => {
    const { clientId, tokens } = await connect();
    expect((await form("/oauth/revoke", { token: "agq_rt_nonsense", client_id: clientId })).status).toBe(200);
    expect((await form("/oauth/revoke", { token: "whatever" })).status).toBe(200);
    expect(((await (await form("/oauth/revoke", {})).json()) as { error: string }).error).toBe("invalid_request");
    const res = await form("/oauth/revoke", { token: tokens.refresh_token, token_type_hint: "refresh_token", client_id: clientId }, { Origin: ORIGIN });
    expect(res.status).toBe(200);
    expect(res.headers.get("access-control-allow-origin")).toBe("*");
    const grants = await s.world.deps.stores.oauth.listGrants({ workspaceId: s.alice.workspace.id, after: null, limit: 10 });
    expect(grants.map((g) => g.revokedReason)).toEqual(["revoked_by_client"]);
  });

  it("another workspace's client cannot use, refresh or revoke a grant it does not hold", async () => {
    const a = await connect(s.alice.workspace.id, s.alice.account.id);
    const otherWorkspace = await seedTestWorkspace(s.world.deps.stores);
    const stranger = await seedPrincipal(s.world.deps.stores, otherWorkspace, { friendlyName: "stranger" });
    const b = await connect(otherWorkspace.id, stranger.account.id);
    const stolen = await form("/oauth/token", { grant_type: "refresh_token", client_id: b.clientId, refresh_token: a.tokens.refresh_token });
    expect(((await stolen.json()) as { error: string }).error).toBe("invalid_grant");
    expect((await form("/oauth/revoke", { token: a.tokens.refresh_token, client_id: b.clientId })).status).toBe(200);
    expect((await form("/oauth/revoke", { token: a.tokens.access_token, client_id: b.clientId })).status).toBe(200);
    const grants = await s.world.deps.stores.oauth.listGrants({ workspaceId: s.alice.workspace.id, after: null, limit: 10 });
    expect(grants.map((g) => g.revokedAt)).toEqual([null]);
    expect((await s.world.deps.stores.oauth.listGrants({ workspaceId: otherWorkspace.id, after: null, limit: 10 })).map((g) => g.clientId)).toEqual([b.clientId]);
    expect((await auth.authenticate(`Bearer ${a.tokens.access_token as string}`)).account.id).toBe(s.alice.account.id);
    // A's refresh token still works for A.
    expect((await form("/oauth/token", { grant_type: "refresh_token", client_id: a.clientId, refresh_token: a.tokens.refresh_token })).status).toBe(200);
  });

  it("unknown paths get 404 and wrong methods 405 in the SVC envelope, with X-Request-Id", async () => {
    const missing = await app.request("/oauth/nothing");
    expect(missing.status).toBe(404);
    expect(missing.headers.get("x-request-id")).toBeTruthy();
    expect(await missing.json()).toMatchObject({ error: { code: "SVC_ROUTE_NOT_FOUND" } });
    const wrong = await app.request("/oauth/token");
    expect(wrong.status).toBe(405);
    expect(wrong.headers.get("allow")).toBe("POST");
    expect(await wrong.json()).toMatchObject({ error: { code: "SVC_METHOD_NOT_ALLOWED" } });
  });
});
