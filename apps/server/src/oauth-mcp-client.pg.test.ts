import { ACCESS_TOKEN_LIFETIME_MS } from "@agentq/core";
import { ManualClock } from "@agentq/core/testing";
import { errorCodeOf, isUnauthorizedError, oauthMcpClient, RecordingOAuthProvider, structured } from "@agentq/mcp/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerConsent } from "./testing/oauth-consent.ts";
import { signInPerson, signUpPerson, type SignedInPerson } from "./testing/people.ts";
import { serveComposed, type ServedService } from "./testing/serve-composed.ts";
import { runMcpInspector } from "./testing/spawn-server.ts";

// Issue 15: the whole OAuth flow driven by the real MCP SDK client (its OAuthClientProvider,
// auth() and finishAuth) against the composed server over PostgreSQL; the test plays the browser
// with a signed-in session cookie. Then the rules around it: expiry and automatic refresh, the
// refresh rule (the most recently spent token replayed revokes the grant, an older one is only
// refused), code replay, PKCE and redirect mismatches, deny, and disconnect from Connections; and
// the MCP Inspector's CLI with a token the flow issued.
// Codes and statuses only.

type Json = Record<string, any>;
const PASSWORD = "a long and quiet river";

describe("OAuth with the MCP SDK client (PostgreSQL, real HTTP)", () => {
  const clock = new ManualClock(new Date());
  let served: ServedService;
  let base: string;
  let owner: SignedInPerson;
  let n = 0;

  const redirectUrl = () => `http://127.0.0.1:${40000 + ++n}/callback`;
  const form = (path: string, params: Record<string, string>) => fetch(`${base}${path}`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(params).toString() });
  const me = (accessToken: string) => fetch(`${base}/v1/me`, { headers: { Authorization: `Bearer ${accessToken}` } });
  const session = () => ({ Cookie: owner.cookie, Origin: base, "Content-Type": "application/json" });
  const connections = async (): Promise<Json[]> => ((await (await fetch(`${base}/v1/connections`, { headers: session() })).json()) as Json).items as Json[];
  const refresh = (clientId: string, refreshToken: string) => form("/oauth/token", { grant_type: "refresh_token", client_id: clientId, refresh_token: refreshToken });

  /** Plays the browser for the provider's newest authorization URL; returns the redirect's query. */
  async function consent(provider: RecordingOAuthProvider, decision: { approve: boolean; newAccountName?: string }): Promise<URLSearchParams> {
    const url = provider.authorizationUrls.at(-1);
    if (url === undefined) throw new Error("the SDK asked for no authorization");
    const { answer } = await answerConsent(url.toString(), owner.cookie, decision.approve ? { approve: true, aiAccount: decision.newAccountName === undefined ? undefined : "new", ...(decision.newAccountName === undefined ? {} : { newAccountName: decision.newAccountName }) } : { approve: false });
    expect(answer?.status).toBe(303);
    const location = new URL(answer?.headers.get("location") as string);
    expect(`${location.origin}${location.pathname}`).toBe(provider.redirectUrl);
    return location.searchParams;
  }

  /** The SDK's own flow: connect (401, discovery, registration, authorization URL), consent, finishAuth(code), connect again. */
  async function connectThroughConsent(provider: RecordingOAuthProvider, newAccountName?: string): Promise<ReturnType<typeof oauthMcpClient>["client"] & { settled: () => Promise<void> }> {
    const first = oauthMcpClient(base, provider);
    const refused = await first.client.connect(first.transport).then(() => null, (e: unknown) => e);
    expect(isUnauthorizedError(refused)).toBe(true);
    const answer = await consent(provider, { approve: true, ...(newAccountName === undefined ? {} : { newAccountName }) });
    expect(answer.get("state")).toBe(provider.expectedState);
    expect(answer.get("iss")).toBe(base);
    await first.transport.finishAuth(answer.get("code") as string);
    const second = oauthMcpClient(base, provider);
    await second.client.connect(second.transport);
    return Object.assign(second.client, { settled: second.settled });
  }

  const clientIdOf = (provider: RecordingOAuthProvider) => (provider.clientInformation() as { client_id: string }).client_id;
  const accessOf = (provider: RecordingOAuthProvider) => provider.tokens()?.access_token as string;

  beforeAll(async () => {
    served = await serveComposed({ clock });
    base = served.baseUrl;
    owner = await signUpPerson(base, { email: "owner@sdk-oauth.test", password: PASSWORD, workspaceName: "sdk-oauth", inbox: served.smtp });
  });
  afterAll(async () => {
    await served?.close();
  });

  it("connects the SDK client through discovery, registration, consent and finishAuth; the token works on MCP and REST and shows under Connections", async () => {
    const provider = new RecordingOAuthProvider(redirectUrl(), "Claude Code");
    const client = await connectThroughConsent(provider, "claude-code");
    try {
      const url = provider.authorizationUrls[0] as URL;
      expect(url.searchParams.get("code_challenge_method")).toBe("S256");
      expect(url.searchParams.get("resource")).toBe(`${base}/mcp`);
      const result = await client.callTool({ name: "list_recipients", arguments: {} });
      expect(errorCodeOf(result)).toBeUndefined();
      expect(JSON.stringify(structured(result))).toContain("claude-code");
      const rest = await me(accessOf(provider));
      expect(rest.status).toBe(200);
      expect(((await rest.json()) as Json).ai_account.friendly_name).toBe("claude-code");
      const listed = (await connections()).find((c) => c.client_id === clientIdOf(provider));
      expect(listed).toMatchObject({ client_name: "Claude Code", state: "active", ai_account: { friendly_name: "claude-code" } });
      expect(listed?.redirect_host).toBe(new URL(provider.redirectUrl).host);
    } finally {
      await client.close();
    }
  });

  it("the MCP Inspector in CLI mode connects with an access token the flow issued, and lists and calls tools as the chosen account", async () => {
    const provider = new RecordingOAuthProvider(redirectUrl(), "MCP Inspector");
    const client = await connectThroughConsent(provider, "inspector");
    await client.settled();
    await client.close();
    const token = accessOf(provider);
    const list = await runMcpInspector(`${base}/mcp`, token, ["--method", "tools/list"]);
    expect(list.code, list.stderr).toBe(0);
    expect((JSON.parse(list.stdout) as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(expect.arrayContaining(["send", "get_pending", "list_recipients"]));
    const call = await runMcpInspector(`${base}/mcp`, token, ["--method", "tools/call", "--tool-name", "list_recipients"]);
    expect(call.code, call.stderr).toBe(0);
    const result = JSON.parse(call.stdout) as { isError?: boolean };
    expect(result.isError ?? false).toBe(false);
    expect(call.stdout).toContain("inspector");
  });

  it("refreshes by itself when the access token expires: the next tool call gets a 401, the SDK rotates the refresh token and retries", async () => {
    const provider = new RecordingOAuthProvider(redirectUrl());
    const client = await connectThroughConsent(provider);
    try {
      const before = provider.tokens();
      // The GET stream the SDK opened after connecting is answered before the clock moves (see below).
      await client.settled();
      clock.advance(ACCESS_TOKEN_LIFETIME_MS + 1_000);
      expect((await me(before?.access_token as string)).status).toBe(401);
      const result = await client.callTool({ name: "list_recipients", arguments: {} });
      expect(errorCodeOf(result)).toBeUndefined();
      const after = provider.tokens();
      expect(provider.savedTokens).toHaveLength(2);
      expect(after?.access_token).not.toBe(before?.access_token);
      expect(after?.refresh_token).not.toBe(before?.refresh_token);
      const afterMe = await me(after?.access_token as string);
      expect(afterMe.status, await afterMe.clone().text()).toBe(200);
    } finally {
      await client.close();
      // The person's session idled out with the clock: sign in again for the next tests.
      owner = await signInPerson(base, { email: "owner@sdk-oauth.test", password: PASSWORD });
    }
  });

  it("the refresh rule: an older refresh token is refused without revoking; the most recently spent one revokes the whole grant", async () => {
    const provider = new RecordingOAuthProvider(redirectUrl());
    const client = await connectThroughConsent(provider);
    await client.close();
    const clientId = clientIdOf(provider);
    const rt1 = provider.tokens()?.refresh_token as string;
    const r2 = (await (await refresh(clientId, rt1)).json()) as Json;
    const r3Res = await refresh(clientId, r2.refresh_token as string);
    expect(r3Res.status).toBe(200);
    const r3 = (await r3Res.json()) as Json;
    // rt1 was spent two rotations ago: forgotten, refused as unknown, nothing revoked.
    const older = await refresh(clientId, rt1);
    expect(older.status).toBe(400);
    expect(((await older.json()) as Json).error).toBe("invalid_grant");
    expect((await me(r3.access_token as string)).status).toBe(200);
    expect((await connections()).find((c) => c.client_id === clientId)?.state).toBe("active");
    // rt2 is the most recently spent one: presenting it again revokes the grant.
    const replayed = await refresh(clientId, r2.refresh_token as string);
    expect(replayed.status).toBe(400);
    expect(((await replayed.json()) as Json).error).toBe("invalid_grant");
    expect((await me(r3.access_token as string)).status).toBe(401);
    expect((await me(r2.access_token as string)).status).toBe(401);
    expect((await refresh(clientId, r3.refresh_token as string)).status).toBe(400);
    expect((await connections()).find((c) => c.client_id === clientId)).toMatchObject({ state: "revoked", revoked_reason: "refresh_token_replayed" });
  });

  it("two refreshes racing with one refresh token: one wins, the other counts as a replay and the grant ends (what a client that does not serialise its refreshes sees)", async () => {
    const provider = new RecordingOAuthProvider(redirectUrl());
    const client = await connectThroughConsent(provider);
    await client.settled();
    await client.close();
    const clientId = clientIdOf(provider);
    const rt = provider.tokens()?.refresh_token as string;
    const answers = await Promise.all([refresh(clientId, rt), refresh(clientId, rt)]);
    expect(answers.map((r) => r.status).sort()).toEqual([200, 400]);
    const winner = (await (answers.find((r) => r.status === 200) as Response).json()) as Json;
    expect((await me(winner.access_token as string)).status).toBe(401);
    expect((await connections()).find((c) => c.client_id === clientId)).toMatchObject({ state: "revoked", revoked_reason: "refresh_token_replayed" });
  });

  it("a replayed code is refused and revokes what its first exchange issued; a wrong PKCE verifier or redirect_uri is refused", async () => {
    const provider = new RecordingOAuthProvider(redirectUrl());
    const first = oauthMcpClient(base, provider);
    expect(isUnauthorizedError(await first.client.connect(first.transport).then(() => null, (e: unknown) => e))).toBe(true);
    const clientId = clientIdOf(provider);
    const exchange = (code: string, p: { verifier?: string; redirect?: string } = {}) =>
      form("/oauth/token", { grant_type: "authorization_code", client_id: clientId, code, redirect_uri: p.redirect ?? provider.redirectUrl, code_verifier: p.verifier ?? provider.codeVerifier(), resource: `${base}/mcp` });

    const code = (await consent(provider, { approve: true })).get("code") as string;
    const ok = await exchange(code);
    expect(ok.status).toBe(200);
    const access = ((await ok.json()) as Json).access_token as string;
    expect((await me(access)).status).toBe(200);
    const replay = await exchange(code);
    expect(replay.status).toBe(400);
    expect(((await replay.json()) as Json).error).toBe("invalid_grant");
    expect((await me(access)).status).toBe(401);

    const wrongVerifier = await exchange((await consent(provider, { approve: true })).get("code") as string, { verifier: "x".repeat(43) });
    expect(wrongVerifier.status).toBe(400);
    expect(((await wrongVerifier.json()) as Json).error).toBe("invalid_grant");
    const wrongRedirect = await exchange((await consent(provider, { approve: true })).get("code") as string, { redirect: "http://127.0.0.1:1/other" });
    expect(wrongRedirect.status).toBe(400);
    expect(((await wrongRedirect.json()) as Json).error).toBe("invalid_grant");
    // An authorization URL naming a redirect URI the client never registered is a page, never a redirect.
    const url = new URL(provider.authorizationUrls.at(-1) as URL);
    url.searchParams.set("redirect_uri", "https://evil.example/cb");
    const page = await fetch(url, { headers: { Cookie: owner.cookie }, redirect: "manual" });
    expect(page.status).toBe(400);
    expect(page.headers.get("location")).toBeNull();
  });

  it("deny: the client gets error=access_denied and no token; the SDK stays unauthorized", async () => {
    const provider = new RecordingOAuthProvider(redirectUrl());
    const first = oauthMcpClient(base, provider);
    expect(isUnauthorizedError(await first.client.connect(first.transport).then(() => null, (e: unknown) => e))).toBe(true);
    const answer = await consent(provider, { approve: false });
    expect(answer.get("error")).toBe("access_denied");
    expect(answer.get("state")).toBe(provider.expectedState);
    expect(answer.get("code")).toBeNull();
    expect(provider.tokens()).toBeUndefined();
    const again = oauthMcpClient(base, provider);
    expect(isUnauthorizedError(await again.client.connect(again.transport).then(() => null, (e: unknown) => e))).toBe(true);
  });

  it("disconnect from Connections ends access at once on MCP and REST, and the SDK falls back to asking for authorization", async () => {
    const provider = new RecordingOAuthProvider(redirectUrl(), "Cursor");
    const client = await connectThroughConsent(provider);
    const access = accessOf(provider);
    const grant = (await connections()).find((c) => c.client_id === clientIdOf(provider)) as Json;
    const res = await fetch(`${base}/v1/connections/${grant.id as string}/disconnect`, { method: "POST", headers: session(), body: "{}" });
    expect(res.status).toBe(200);
    expect((await me(access)).status).toBe(401);
    const raw = await fetch(`${base}/mcp`, { method: "POST", headers: { Authorization: `Bearer ${access}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }) });
    expect(raw.status).toBe(401);
    const asked = provider.authorizationUrls.length;
    const call = await client.callTool({ name: "list_recipients", arguments: {} }).then(() => null, (e: unknown) => e);
    expect(isUnauthorizedError(call)).toBe(true);
    expect(provider.authorizationUrls.length).toBe(asked + 1);
    await client.close();
    expect((await connections()).find((c) => c.id === grant.id)).toMatchObject({ state: "revoked", revoked_reason: "disconnected" });
  });
});
