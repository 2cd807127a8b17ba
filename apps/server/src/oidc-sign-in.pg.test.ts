import { TEST_SECRETS } from "@agentq/core/testing";
import { serveOnFreePort, type ServedApp } from "@agentq/mcp/testing";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import { createServer, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeService, type ComposedService } from "./compose.ts";
import { createLogger } from "./logger.ts";
import { createOpenIdClientProvider } from "./oidc/openid-client-provider.ts";
import { startTestIdentityProvider, type TestIdentityProvider } from "./testing/identity-provider.ts";
import { PENDING_MFA_COOKIE, SESSION_COOKIE, signUpPerson } from "./testing/people.ts";
import { TestBrowser } from "./testing/test-browser.ts";

// Issue 13 (people, slice B4): sign-in with an OpenID Connect provider, end to end over real HTTP
// on PostgreSQL against a real provider (oidc-provider) on 127.0.0.1, walked by a browser that
// follows the redirects and keeps the cookies: a new person is signed up, an existing one signed
// in, and every way the callback can go wrong is refused without a session.

type Json = Record<string, any>;

describe("OIDC sign-in (PostgreSQL, real HTTP, a real identity provider)", () => {
  let db: TestSchema;
  let service: ComposedService;
  let served: ServedApp;
  let idp: TestIdentityProvider;

  beforeAll(async () => {
    db = await createTestSchema({ max: 5 });
    // Served first, composed once the address (PUBLIC_BASE_URL, hence the redirect URI) is known.
    served = await serveOnFreePort((request: Request) => service.fetch(request));
    idp = await startTestIdentityProvider({ redirectUris: [`${served.url}/v1/auth/oidc/callback`] });
    const oidc = createOpenIdClientProvider({ issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, label: "Test IdP" });
    service = composeService({ sql: db.sql, secrets: TEST_SECRETS, publicBaseUrl: served.url, logger: createLogger("silent"), rateLimiter: "off", oidc });
  });
  afterAll(async () => {
    await served?.close();
    await service?.close();
    await idp?.close();
    await db?.drop();
  });

  /** Starts at /v1/auth/oidc/start and follows every redirect until the browser is back on this service outside /v1/auth/oidc/. */
  const signInWithIdp = async (browser: TestBrowser, returnTo = "/settings") => {
    const landing = `${served.url}${returnTo}`;
    return browser.navigate(`${served.url}/v1/auth/oidc/start?return_to=${encodeURIComponent(returnTo)}`, { stopBefore: (u) => u === landing });
  };
  const me = async (browser: TestBrowser) => {
    const res = await browser.request(`${served.url}/v1/me`);
    return { status: res.status, body: (await res.json()) as Json };
  };

  it("says whether it is configured and under which label", async () => {
    expect(await (await fetch(`${served.url}/v1/auth/oidc`)).json()).toEqual({ enabled: true, label: "Test IdP" });
  });

  it("signs up a new person with the verified email: a new workspace, a session, and back to return_to", async () => {
    idp.signInAs({ sub: "ada-1", email: "Ada@OIDC.test", email_verified: true, name: "Ada Lovelace" });
    const browser = new TestBrowser();
    const walk = await signInWithIdp(browser);
    expect(walk.response).toBeNull();
    expect(walk.url).toBe(`${served.url}/settings`);
    expect(walk.visited.some((u) => u.startsWith(idp.issuer))).toBe(true);
    expect(browser.cookiesOf("127.0.0.1").get(SESSION_COOKIE)).toMatch(/^agq_se_/);
    expect(browser.cookiesOf("127.0.0.1").has("__Host-agentq_oidc")).toBe(false);
    const who = await me(browser);
    expect(who.body).toMatchObject({ kind: "person", person: { email: "ada@oidc.test", display_name: "Ada Lovelace", role: "owner" }, workspace: { name: "Ada Lovelace's workspace", state: "active", plan: "free" } });
    // No password was set: a password sign-in is refused.
    expect((await fetch(`${served.url}/v1/auth/sign-in`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ email: "ada@oidc.test", password: "any long password here" }) })).status).toBe(401);
    const audit = await db.sql<{ activity: string; details: Json }[]>`select activity, details from audit_log where workspace_id = ${who.body.workspace.id} order by id`;
    expect(audit.map((r) => r.activity)).toEqual(["workspace.created", "person.signed_up", "person.signed_in", "person.sign_in_failed"]);
    expect(audit[2]?.details).toMatchObject({ via: "oidc", issuer: idp.issuer });
    // Signing in again through the provider finds the same person.
    idp.signInAs({ sub: "ada-1", email: "ada@oidc.test", email_verified: true, name: "Ada Lovelace" });
    const again = new TestBrowser();
    await signInWithIdp(again, "/");
    expect((await me(again)).body.person.id).toBe(who.body.person.id);
  });

  it("signs in the person who signed up with a password, by the verified email, without a new workspace", async () => {
    const owner = await signUpPerson(served.url, { email: "bo@oidc.test", password: "a long and quiet river", workspaceName: "Bo's" });
    idp.signInAs({ sub: "bo-at-idp", email: "BO@oidc.test", email_verified: true });
    const browser = new TestBrowser();
    await signInWithIdp(browser);
    const who = await me(browser);
    expect(who.body.person.id).toBe(owner.body.person.id);
    expect(who.body.workspace.id).toBe(owner.body.workspace.id);
    expect(await db.sql`select 1 from persons where email = 'bo@oidc.test'`).toHaveLength(1);
  });

  it("gives a person with MFA on a pending-MFA cookie only: the sign-in completes with the second factor", async () => {
    const owner = await signUpPerson(served.url, { email: "cy@oidc.test", password: "a long and quiet river", workspaceName: "Cy's" });
    await db.sql`update persons set mfa_enabled_at = now() where id = ${owner.body.person.id}`;
    idp.signInAs({ sub: "cy", email: "cy@oidc.test", email_verified: true });
    const browser = new TestBrowser();
    await signInWithIdp(browser);
    expect(browser.cookiesOf("127.0.0.1").get(PENDING_MFA_COOKIE)).toMatch(/^agq_se_/);
    expect(browser.cookiesOf("127.0.0.1").has(SESSION_COOKIE)).toBe(false);
    expect((await me(browser)).status).toBe(401);
  });

  it("refuses an unverified email, a cancelled sign-in, a callback without its attempt, a replayed callback, and another site as return_to", async () => {
    idp.signInAs({ sub: "dee", email: "dee@oidc.test", email_verified: false });
    let browser = new TestBrowser();
    let walk = await signInWithIdp(browser);
    expect(walk.response?.status).toBe(401);
    expect(((await walk.response!.json()) as Json).error).toMatchObject({ code: "SVC_UNAUTHENTICATED", details: { reason: "email_not_verified" } });
    expect(await db.sql`select 1 from persons where email = 'dee@oidc.test'`).toHaveLength(0);
    expect(browser.cookiesOf("127.0.0.1").has(SESSION_COOKIE)).toBe(false);

    idp.denyNext();
    walk = await signInWithIdp(new TestBrowser());
    expect(((await walk.response!.json()) as Json).error).toMatchObject({ code: "SVC_UNAUTHENTICATED", details: { reason: "provider_error:access_denied" } });

    // The callback reached in another browser (no attempt cookie), then replayed in the right one.
    idp.signInAs({ sub: "eve", email: "eve@oidc.test", email_verified: true });
    browser = new TestBrowser();
    const atCallback = await browser.navigate(`${served.url}/v1/auth/oidc/start`, { stopBefore: (u) => u.startsWith(`${served.url}/v1/auth/oidc/callback`) });
    const elsewhere = await fetch(atCallback.url, { redirect: "manual" });
    expect(((await elsewhere.json()) as Json).error).toMatchObject({ code: "SVC_UNAUTHENTICATED", details: { reason: "no_attempt" } });
    const first = await browser.request(atCallback.url);
    expect(first.status).toBe(302);
    expect(first.headers.get("location")).toBe(`${served.url}/`);
    const replay = await fetch(atCallback.url, { redirect: "manual", headers: { Cookie: `__Host-agentq_oidc=${"x".repeat(10)}` } });
    expect(replay.status).toBe(401);

    const foreign = await fetch(`${served.url}/v1/auth/oidc/start?return_to=${encodeURIComponent("https://evil.example/")}`, { redirect: "manual" });
    expect(foreign.status).toBe(400);
    expect(((await foreign.json()) as Json).error).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { field: "return_to" } });
  });

  it("answers 503 when the identity provider cannot be reached, and 404 when none is configured", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", () => resolve()));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const down = composeService({ sql: db.sql, secrets: TEST_SECRETS, publicBaseUrl: served.url, logger: createLogger("silent"), rateLimiter: "off", oidc: createOpenIdClientProvider({ issuer: `http://127.0.0.1:${port}`, clientId: "x", clientSecret: "y", label: "Down" }) });
    const none = composeService({ sql: db.sql, secrets: TEST_SECRETS, publicBaseUrl: served.url, logger: createLogger("silent"), rateLimiter: "off" });
    try {
      const unreachable = await down.fetch(new Request(`${served.url}/v1/auth/oidc/start`));
      expect(unreachable.status).toBe(503);
      expect(((await unreachable.json()) as Json).error.code).toBe("SVC_SERVICE_UNAVAILABLE");
      for (const path of ["/v1/auth/oidc/start", "/v1/auth/oidc/callback?code=x&state=y"]) {
        const res = await none.fetch(new Request(`${served.url}${path}`));
        expect(res.status).toBe(404);
        expect(((await res.json()) as Json).error.code).toBe("SVC_RESOURCE_NOT_FOUND");
      }
      expect(await (await none.fetch(new Request(`${served.url}/v1/auth/oidc`))).json()).toEqual({ enabled: false });
    } finally {
      await down.close();
      await none.close();
    }
  });
});
