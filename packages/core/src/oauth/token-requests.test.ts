import { beforeEach, describe, expect, it } from "vitest";
import { createAuthenticator, type Authenticator } from "../access/authenticate.ts";
import { isOAuthError, type OAuthErrorCode } from "../errors.ts";
import { callOperation, refusalCode } from "../testing/guard-rail-calls.ts";
import { createMessagingScenario, type MessagingScenario } from "../testing/messaging-scenario.ts";
import { approveForTest, connectForTest, registerTestClient, tokenRequest, TEST_REDIRECT_URI } from "../testing/oauth-flow.ts";
import { ACCESS_TOKEN_LIFETIME_MS, REFRESH_TOKEN_LIFETIME_MS } from "./model.ts";
import { revokeOAuthToken } from "./revoke-token.ts";

/** The OAuth error code the promise rejects with, or "none". */
async function oauthCode(p: Promise<unknown>): Promise<OAuthErrorCode | "none"> {
  try {
    await p;
  } catch (e) {
    if (isOAuthError(e)) return e.code;
    throw e;
  }
  return "none";
}

describe("the token endpoint's rules (core, in memory)", () => {
  let s: MessagingScenario;
  let auth: Authenticator;
  const ws = () => s.alice.workspace.id;
  const bearer = (token: string) => `Bearer ${token}`;
  const audit = async (activity: string) => s.world.deps.stores.audit.list({ workspaceId: ws(), activity, messageId: null, includeOperatorSignificant: true, after: null, limit: 100 });

  beforeEach(async () => {
    s = await createMessagingScenario();
    auth = createAuthenticator(s.world.deps);
    s.world.deps.credentialCache = auth;
  });

  it("exchanges a code for an access token (an operational credential of the chosen account, one hour) and a rotating refresh token", async () => {
    const { tokens, grantId, client } = await connectForTest(s.world.deps, { workspaceId: ws(), aiAccountId: s.alice.account.id, scopes: ["send", "list_recipients"] });
    expect(tokens).toMatchObject({ token_type: "Bearer", expires_in: 3600, scope: "send list_recipients" });
    expect(tokens.access_token).toMatch(/^agq_op_/);
    expect(tokens.refresh_token).toMatch(/^agq_rt_[A-Za-z0-9_-]{43}$/);
    const principal = await auth.authenticate(bearer(tokens.access_token));
    expect(principal.account.id).toBe(s.alice.account.id);
    expect(principal.credential).toMatchObject({ tier: "operational", scopes: ["send", "list_recipients"], name: "OAuth: Test MCP client" });
    expect(principal.credential.expiresAt?.getTime()).toBe(s.world.clock.now().getTime() + ACCESS_TOKEN_LIFETIME_MS);
    const grant = await s.world.deps.stores.oauth.findGrant({ workspaceId: ws(), grantId });
    expect(grant).toMatchObject({ clientId: client.id, aiAccountId: s.alice.account.id, revokedAt: null, refreshExpiresAt: new Date(s.world.clock.now().getTime() + REFRESH_TOKEN_LIFETIME_MS) });
    expect((await audit("oauth_grant.created")).map((r) => r.subjectId)).toEqual([grantId]);
    expect((await audit("credential.issued")).some((r) => r.subjectId === principal.credential.id && r.details.oauth_grant_id === grantId)).toBe(true);
  });

  it("the access token stops working when it expires; a refresh gives a new one and a new refresh token", async () => {
    const { tokens, client } = await connectForTest(s.world.deps, { workspaceId: ws(), aiAccountId: s.alice.account.id });
    s.world.clock.advance(ACCESS_TOKEN_LIFETIME_MS);
    expect(await refusalCode(auth.authenticate(bearer(tokens.access_token)))).toBe("SVC_UNAUTHENTICATED");
    const next = await tokenRequest(s.world.deps, { grant_type: "refresh_token", client_id: client.id, refresh_token: tokens.refresh_token as string });
    expect(next.refresh_token).not.toBe(tokens.refresh_token);
    expect((await auth.authenticate(bearer(next.access_token))).account.id).toBe(s.alice.account.id);
  });

  it("replaying the most recently spent refresh token revokes the whole grant, with the cause on the grant and in the audit log", async () => {
    const { tokens, client, grantId } = await connectForTest(s.world.deps, { workspaceId: ws(), aiAccountId: s.alice.account.id });
    const second = await tokenRequest(s.world.deps, { grant_type: "refresh_token", client_id: client.id, refresh_token: tokens.refresh_token as string });
    expect(await oauthCode(tokenRequest(s.world.deps, { grant_type: "refresh_token", client_id: client.id, refresh_token: tokens.refresh_token as string }))).toBe("invalid_grant");
    const grant = await s.world.deps.stores.oauth.findGrant({ workspaceId: ws(), grantId });
    expect(grant).toMatchObject({ revokedReason: "refresh_token_replayed" });
    expect(await refusalCode(auth.authenticate(bearer(tokens.access_token)))).toBe("SVC_UNAUTHENTICATED");
    expect(await refusalCode(auth.authenticate(bearer(second.access_token)))).toBe("SVC_UNAUTHENTICATED");
    expect(await oauthCode(tokenRequest(s.world.deps, { grant_type: "refresh_token", client_id: client.id, refresh_token: second.refresh_token as string }))).toBe("invalid_grant");
    const rows = await audit("oauth_grant.revoked");
    expect(rows.map((r) => [r.subjectId, r.details.cause])).toEqual([[grantId, "refresh_token_replayed"]]);
    expect((await audit("credential.revoked")).length).toBe(2);
  });

  it("a refresh token older than the most recently spent one is refused as unknown, without revoking", async () => {
    const { tokens, client, grantId } = await connectForTest(s.world.deps, { workspaceId: ws(), aiAccountId: s.alice.account.id });
    const second = await tokenRequest(s.world.deps, { grant_type: "refresh_token", client_id: client.id, refresh_token: tokens.refresh_token as string });
    const third = await tokenRequest(s.world.deps, { grant_type: "refresh_token", client_id: client.id, refresh_token: second.refresh_token as string });
    expect(await oauthCode(tokenRequest(s.world.deps, { grant_type: "refresh_token", client_id: client.id, refresh_token: tokens.refresh_token as string }))).toBe("invalid_grant");
    expect((await s.world.deps.stores.oauth.findGrant({ workspaceId: ws(), grantId }))?.revokedAt).toBeNull();
    expect((await auth.authenticate(bearer(third.access_token))).account.id).toBe(s.alice.account.id);
    await tokenRequest(s.world.deps, { grant_type: "refresh_token", client_id: client.id, refresh_token: third.refresh_token as string });
  });

  it("a replayed code revokes what its first exchange issued", async () => {
    const client = await registerTestClient(s.world.deps);
    const { code, verifier } = await approveForTest(s.world.deps, { client, workspaceId: ws(), aiAccountId: s.alice.account.id });
    const params = { grant_type: "authorization_code", client_id: client.id, code, redirect_uri: TEST_REDIRECT_URI, code_verifier: verifier };
    const tokens = await tokenRequest(s.world.deps, params);
    expect(await oauthCode(tokenRequest(s.world.deps, params))).toBe("invalid_grant");
    expect(await refusalCode(auth.authenticate(bearer(tokens.access_token)))).toBe("SVC_UNAUTHENTICATED");
    expect(await oauthCode(tokenRequest(s.world.deps, { grant_type: "refresh_token", client_id: client.id, refresh_token: tokens.refresh_token as string }))).toBe("invalid_grant");
    expect((await audit("oauth_grant.revoked")).map((r) => r.details.cause)).toEqual(["authorization_code_replayed"]);
  });

  it("a PKCE mismatch, another redirect URI, another client or an expired code is invalid_grant, and spends the code", async () => {
    const client = await registerTestClient(s.world.deps);
    const other = await registerTestClient(s.world.deps);
    const cases: [string, (p: { code: string; verifier: string }) => Record<string, string>][] = [
      ["pkce", ({ code }) => ({ client_id: client.id, code, redirect_uri: TEST_REDIRECT_URI, code_verifier: "x".repeat(43) })],
      ["redirect", ({ code, verifier }) => ({ client_id: client.id, code, redirect_uri: "http://127.0.0.1:9/callback", code_verifier: verifier })],
      ["client", ({ code, verifier }) => ({ client_id: other.id, code, redirect_uri: TEST_REDIRECT_URI, code_verifier: verifier })],
    ];
    for (const [, params] of cases) {
      const approval = await approveForTest(s.world.deps, { client, workspaceId: ws(), aiAccountId: s.alice.account.id });
      expect(await oauthCode(tokenRequest(s.world.deps, { grant_type: "authorization_code", ...params(approval) }))).toBe("invalid_grant");
      // Spent: even the right request is refused now.
      expect(await oauthCode(tokenRequest(s.world.deps, { grant_type: "authorization_code", client_id: client.id, code: approval.code, redirect_uri: TEST_REDIRECT_URI, code_verifier: approval.verifier }))).toBe("invalid_grant");
    }
    const late = await approveForTest(s.world.deps, { client, workspaceId: ws(), aiAccountId: s.alice.account.id });
    s.world.clock.advance(10 * 60_000);
    expect(await oauthCode(tokenRequest(s.world.deps, { grant_type: "authorization_code", client_id: client.id, code: late.code, redirect_uri: TEST_REDIRECT_URI, code_verifier: late.verifier }))).toBe("invalid_grant");
    expect(await s.world.deps.stores.oauth.listGrants({ workspaceId: ws(), after: null, limit: 10 })).toEqual([]);
  });

  it("refuses unknown clients (401 invalid_client), foreign resources, unknown grant types and missing parameters", async () => {
    const client = await registerTestClient(s.world.deps);
    const approval = await approveForTest(s.world.deps, { client, workspaceId: ws(), aiAccountId: s.alice.account.id });
    const good = { grant_type: "authorization_code", client_id: client.id, code: approval.code, redirect_uri: TEST_REDIRECT_URI, code_verifier: approval.verifier };
    expect(await oauthCode(tokenRequest(s.world.deps, { ...good, client_id: "01JUNKNOWNCLIENT0000000000" }))).toBe("invalid_client");
    expect(await oauthCode(tokenRequest(s.world.deps, { ...good, client_id: "not a ulid" }))).toBe("invalid_client");
    expect(await oauthCode(tokenRequest(s.world.deps, { ...good, resource: "https://evil.example/mcp" }))).toBe("invalid_target");
    expect(await oauthCode(tokenRequest(s.world.deps, { ...good, grant_type: "client_credentials" }))).toBe("unsupported_grant_type");
    expect(await oauthCode(tokenRequest(s.world.deps, { grant_type: "authorization_code", client_id: client.id, code: approval.code }))).toBe("invalid_request");
    expect(await oauthCode(tokenRequest(s.world.deps, { ...good, code_verifier: "short" }))).toBe("invalid_request");
    // None of those spent the code.
    expect((await tokenRequest(s.world.deps, { ...good, resource: "http://127.0.0.1:8080/mcp" })).access_token).toMatch(/^agq_op_/);
  });

  it("a refresh may narrow the scopes of its access token, never widen them (the token stays unspent)", async () => {
    const { tokens, client } = await connectForTest(s.world.deps, { workspaceId: ws(), aiAccountId: s.alice.account.id, scopes: ["send", "ack"] });
    expect(await oauthCode(tokenRequest(s.world.deps, { grant_type: "refresh_token", client_id: client.id, refresh_token: tokens.refresh_token as string, scope: "send manage_credentials" }))).toBe("invalid_scope");
    const narrowed = await tokenRequest(s.world.deps, { grant_type: "refresh_token", client_id: client.id, refresh_token: tokens.refresh_token as string, scope: "ack" });
    expect(narrowed.scope).toBe("ack");
    expect((await auth.authenticate(bearer(narrowed.access_token))).credential.scopes).toEqual(["ack"]);
  });

  it("a refresh token of another client is refused without revoking; a revoked AI account ends the grant", async () => {
    const { tokens, client, grantId } = await connectForTest(s.world.deps, { workspaceId: ws(), aiAccountId: s.bob.account.id });
    const other = await registerTestClient(s.world.deps);
    expect(await oauthCode(tokenRequest(s.world.deps, { grant_type: "refresh_token", client_id: other.id, refresh_token: tokens.refresh_token as string }))).toBe("invalid_grant");
    expect((await s.world.deps.stores.oauth.findGrant({ workspaceId: ws(), grantId }))?.revokedAt).toBeNull();
    await callOperation(s.world.deps, s.admin, "revoke_ai_account", { ai_account_id: s.bob.account.id });
    expect(await oauthCode(tokenRequest(s.world.deps, { grant_type: "refresh_token", client_id: client.id, refresh_token: tokens.refresh_token as string }))).toBe("invalid_grant");
    expect((await s.world.deps.stores.oauth.findGrant({ workspaceId: ws(), grantId }))?.revokedReason).toBe("ai_account_revoked");
  });

  it("RFC 7009: a refresh token revokes the grant, an access token only itself, a foreign or unknown token nothing", async () => {
    const a = await connectForTest(s.world.deps, { workspaceId: ws(), aiAccountId: s.alice.account.id });
    const b = await connectForTest(s.world.deps, { workspaceId: ws(), aiAccountId: s.alice.account.id });
    await revokeOAuthToken(s.world.deps, { params: { token: a.tokens.access_token, client_id: b.client.id }, basicClientId: null, requestId: null });
    await revokeOAuthToken(s.world.deps, { params: { token: "agq_rt_unknown" }, basicClientId: null, requestId: null });
    expect((await auth.authenticate(bearer(a.tokens.access_token))).account.id).toBe(s.alice.account.id);
    await revokeOAuthToken(s.world.deps, { params: { token: a.tokens.access_token, client_id: a.client.id }, basicClientId: null, requestId: null });
    expect(await refusalCode(auth.authenticate(bearer(a.tokens.access_token)))).toBe("SVC_UNAUTHENTICATED");
    expect((await s.world.deps.stores.oauth.findGrant({ workspaceId: ws(), grantId: a.grantId }))?.revokedAt).toBeNull();
    await revokeOAuthToken(s.world.deps, { params: { token: b.tokens.refresh_token as string }, basicClientId: null, requestId: null });
    expect((await s.world.deps.stores.oauth.findGrant({ workspaceId: ws(), grantId: b.grantId }))?.revokedReason).toBe("revoked_by_client");
    expect(await refusalCode(auth.authenticate(bearer(b.tokens.access_token)))).toBe("SVC_UNAUTHENTICATED");
  });

  it("Connections: lists grants with their account and state; disconnect ends access at once and is refused the second time", async () => {
    const { tokens, client, grantId } = await connectForTest(s.world.deps, { workspaceId: ws(), aiAccountId: s.alice.account.id, clientName: "Claude Code" });
    await auth.authenticate(bearer(tokens.access_token));
    const listed = await callOperation(s.world.deps, s.admin, "list_connections", {});
    expect(listed.body).toMatchObject({ items: [{ id: grantId, client_id: client.id, client_name: "Claude Code", redirect_host: "127.0.0.1:33418", ai_account: { id: s.alice.account.id, friendly_name: "alice" }, state: "active", revoked_reason: null }], next_cursor: null });
    const gone = await callOperation(s.world.deps, s.admin, "disconnect_connection", { connection_id: grantId });
    expect(gone.body).toMatchObject({ id: grantId, state: "revoked", revoked_reason: "disconnected" });
    expect(await refusalCode(auth.authenticate(bearer(tokens.access_token)))).toBe("SVC_UNAUTHENTICATED");
    expect(await oauthCode(tokenRequest(s.world.deps, { grant_type: "refresh_token", client_id: client.id, refresh_token: tokens.refresh_token as string }))).toBe("invalid_grant");
    expect(await refusalCode(callOperation(s.world.deps, s.admin, "disconnect_connection", { connection_id: grantId }))).toBe("SVC_RESOURCE_CONFLICT");
    expect(await refusalCode(callOperation(s.world.deps, s.admin, "disconnect_connection", { connection_id: "01JNOSUCHGRANT000000000000" }))).toBe("SVC_RESOURCE_NOT_FOUND");
    expect(await refusalCode(callOperation(s.world.deps, s.alice, "list_connections", {}))).toBe("SVC_TIER_INSUFFICIENT");
  });
});
