import { TEST_SECRETS } from "@agentq/core/testing";
import { serveOnFreePort, type ServedApp } from "@agentq/mcp/testing";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import { createServer, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeService, type ComposedService } from "./compose.ts";
import { createLogger, createSmtpMailer, createOpenIdClientProvider } from "@agentq/runtime";
import { startSmtpReceiver, type SmtpReceiver, startTestIdentityProvider, type TestIdentityProvider, TestBrowser } from "@agentq/runtime/testing";
import { PENDING_MFA_COOKIE, SESSION_COOKIE, signUpPerson } from "./testing/people.ts";

// Issue 13 (people, slice B4): sign-in with an OpenID Connect provider, end to end over real HTTP
// on PostgreSQL against a real provider (oidc-provider) on 127.0.0.1, walked by a browser that
// follows the redirects and keeps the cookies: a new person is signed up, an existing one signed
// in, and every way the callback can go wrong is refused without a session. Issue 25 (item 5):
// an existing person is signed into only through an identity linked from their settings, never
// by the email the provider reports.

type Json = Record<string, any>;

describe("OIDC sign-in (PostgreSQL, real HTTP, a real identity provider)", () => {
  let db: TestSchema;
  let service: ComposedService;
  let served: ServedApp;
  let smtp: SmtpReceiver;
  let idp: TestIdentityProvider;

  beforeAll(async () => {
    db = await createTestSchema({ max: 5 });
    smtp = await startSmtpReceiver();
    // Served first, composed once the address (PUBLIC_BASE_URL, hence the redirect URI) is known.
    served = await serveOnFreePort((request: Request) => service.fetch(request));
    idp = await startTestIdentityProvider({ redirectUris: [`${served.url}/v1/auth/oidc/callback`] });
    const oidc = createOpenIdClientProvider({ issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, label: "Test IdP" });
    service = composeService({ sql: db.sql, secrets: TEST_SECRETS, publicBaseUrl: served.url, logger: createLogger("silent"), rateLimiter: "off", oidc, mailer: createSmtpMailer({ url: smtp.url, from: "agentq <no-reply@oidc.test>" }) });
  });
  afterAll(async () => {
    await served?.close();
    await service?.close();
    await smtp?.close();
    await idp?.close();
    await db?.drop();
  });

  /** Starts at /v1/auth/oidc/start and follows every redirect until the browser is back on this service outside /v1/auth/oidc/. */
  const signInWithIdp = async (browser: TestBrowser, returnTo = "/settings") => {
    const landing = `${served.url}${returnTo}`;
    return browser.navigate(`${served.url}/v1/auth/oidc/start?return_to=${encodeURIComponent(returnTo)}`, { stopBefore: (u) => u === landing });
  };
  /** From `browser`'s session, links the identity it signs in with at the provider (`?link=1`), back to /settings. */
  const linkWithIdp = async (browser: TestBrowser) => {
    const landing = `${served.url}/settings?done=linked`;
    return browser.navigate(`${served.url}/v1/auth/oidc/start?link=1&return_to=${encodeURIComponent("/settings?done=linked")}`, { stopBefore: (u) => u === landing });
  };
  /** Signs `browser` in with the password (its session cookie kept). */
  const passwordSignIn = async (browser: TestBrowser, email: string, password: string) => {
    const res = await browser.request(`${served.url}/v1/auth/sign-in`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ email, password }) });
    expect(res.status).toBe(200);
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
    expect(audit.map((r) => r.activity)).toEqual(["workspace.created", "person.signed_up", "person.identity_linked", "person.signed_in", "person.sign_in_failed"]);
    expect(audit[2]?.details).toMatchObject({ issuer: idp.issuer, subject: "ada-1", via: "sign_up" });
    expect(audit[3]?.details).toMatchObject({ via: "oidc", issuer: idp.issuer });
    expect(await db.sql`select 1 from person_identities where issuer = ${idp.issuer} and subject = 'ada-1' and person_id = ${who.body.person.id}`).toHaveLength(1);
    // Signing in again through the provider finds the same person by the linked identity, even with another email there now.
    idp.signInAs({ sub: "ada-1", email: "ada.lovelace@elsewhere.test", email_verified: true, name: "Ada Lovelace" });
    const again = new TestBrowser();
    await signInWithIdp(again, "/");
    expect((await me(again)).body.person.id).toBe(who.body.person.id);
  });

  it("never signs into an existing person by the provider's verified email: 409 link_from_settings, no session (a pre-account takeover)", async () => {
    const owner = await signUpPerson(served.url, { email: "bo@oidc.test", password: "a long and quiet river", workspaceName: "Bo's", inbox: smtp });
    // Before the fix, anyone the provider vouched for as bo@oidc.test was signed into Bo's account.
    idp.signInAs({ sub: "not-bo", email: "BO@oidc.test", email_verified: true });
    const browser = new TestBrowser();
    const walk = await signInWithIdp(browser);
    expect(walk.response?.status).toBe(409);
    expect(((await walk.response!.json()) as Json).error).toMatchObject({ code: "SVC_RESOURCE_CONFLICT", details: { reason: "link_from_settings" } });
    expect(browser.cookiesOf("127.0.0.1").has(SESSION_COOKIE)).toBe(false);
    expect(browser.cookiesOf("127.0.0.1").has(PENDING_MFA_COOKIE)).toBe(false);
    expect(await db.sql`select 1 from persons where email = 'bo@oidc.test'`).toHaveLength(1);
    expect(await db.sql`select 1 from person_identities where person_id = ${owner.body.person.id}`).toHaveLength(0);
    const audit = await db.sql<{ activity: string }[]>`select activity from audit_log where workspace_id = ${owner.body.workspace.id} order by id`;
    expect(audit.map((r) => r.activity)).not.toContain("person.identity_linked");
  });

  it("links the identity from the person's settings (audited), then signs that person in through the provider without a new workspace", async () => {
    const owner = await signUpPerson(served.url, { email: "dot@oidc.test", password: "a long and quiet river", workspaceName: "Dot's", inbox: smtp });
    const browser = new TestBrowser();
    await passwordSignIn(browser, "dot@oidc.test", "a long and quiet river");
    const sessionBefore = browser.cookiesOf("127.0.0.1").get(SESSION_COOKIE);
    idp.signInAs({ sub: "dot-at-idp", email: "dot@oidc.test", email_verified: true });
    const walk = await linkWithIdp(browser);
    expect(walk.response).toBeNull();
    expect(walk.url).toBe(`${served.url}/settings?done=linked`);
    // Linking opens no new session: the one that asked for it stays.
    expect(browser.cookiesOf("127.0.0.1").get(SESSION_COOKIE)).toBe(sessionBefore);
    const linked = await db.sql<{ workspace_id: string; subject: string }[]>`select workspace_id, subject from person_identities where person_id = ${owner.body.person.id}`;
    expect(linked).toEqual([{ workspace_id: owner.body.workspace.id, subject: "dot-at-idp" }]);
    const rows = await db.sql<{ activity: string; details: Json }[]>`select activity, details from audit_log where workspace_id = ${owner.body.workspace.id} and activity = 'person.identity_linked'`;
    expect(rows.map((r) => r.details)).toEqual([expect.objectContaining({ issuer: idp.issuer, subject: "dot-at-idp", via: "settings", actor_person_id: owner.body.person.id })]);
    // Linking again the same identity changes nothing.
    idp.signInAs({ sub: "dot-at-idp", email: "dot@oidc.test", email_verified: true });
    expect((await linkWithIdp(browser)).response).toBeNull();
    expect(await db.sql`select 1 from person_identities where person_id = ${owner.body.person.id}`).toHaveLength(1);

    idp.signInAs({ sub: "dot-at-idp", email: "dot@oidc.test", email_verified: true });
    const elsewhere = new TestBrowser();
    await signInWithIdp(elsewhere, "/");
    const who = await me(elsewhere);
    expect(who.body.person.id).toBe(owner.body.person.id);
    expect(who.body.workspace.id).toBe(owner.body.workspace.id);
    expect(await db.sql`select 1 from persons where email = 'dot@oidc.test'`).toHaveLength(1);
  });

  it("refuses to link without a session (401), an identity linked to someone else (409 identity_linked_elsewhere), and a callback reached in another person's session (401)", async () => {
    expect((await fetch(`${served.url}/v1/auth/oidc/start?link=1`, { redirect: "manual" })).status).toBe(401);
    expect((await fetch(`${served.url}/v1/auth/oidc/start?link=yes`, { redirect: "manual" })).status).toBe(400);
    const eli = await signUpPerson(served.url, { email: "eli@oidc.test", password: "a long and quiet river", workspaceName: "Eli's", inbox: smtp });
    const browser = new TestBrowser();
    await passwordSignIn(browser, "eli@oidc.test", "a long and quiet river");
    // ada-1 is Ada's (signed up through the provider above).
    idp.signInAs({ sub: "ada-1", email: "eli@oidc.test", email_verified: true });
    const taken = await linkWithIdp(browser);
    expect(taken.response?.status).toBe(409);
    expect(((await taken.response!.json()) as Json).error).toMatchObject({ code: "SVC_RESOURCE_CONFLICT", details: { reason: "identity_linked_elsewhere" } });
    expect(await db.sql`select 1 from person_identities where person_id = ${eli.body.person.id}`).toHaveLength(0);

    // The attempt started in Eli's session, completed after the browser signed in as someone else.
    await signUpPerson(served.url, { email: "fox@oidc.test", password: "a long and quiet river", workspaceName: "Fox's", inbox: smtp });
    idp.signInAs({ sub: "eli-at-idp", email: "eli@oidc.test", email_verified: true });
    const atCallback = await browser.navigate(`${served.url}/v1/auth/oidc/start?link=1`, { stopBefore: (u) => u.startsWith(`${served.url}/v1/auth/oidc/callback`) });
    await passwordSignIn(browser, "fox@oidc.test", "a long and quiet river");
    const mismatch = await browser.request(atCallback.url);
    expect(mismatch.status).toBe(401);
    expect(((await mismatch.json()) as Json).error).toMatchObject({ code: "SVC_UNAUTHENTICATED", details: { reason: "link_needs_session" } });
    expect(await db.sql`select 1 from person_identities where subject = 'eli-at-idp'`).toHaveLength(0);
  });

  it("gives a person with MFA on a pending-MFA cookie only: the sign-in completes with the second factor", async () => {
    const owner = await signUpPerson(served.url, { email: "cy@oidc.test", password: "a long and quiet river", workspaceName: "Cy's", inbox: smtp });
    const linking = new TestBrowser();
    await passwordSignIn(linking, "cy@oidc.test", "a long and quiet river");
    idp.signInAs({ sub: "cy", email: "cy@oidc.test", email_verified: true });
    expect((await linkWithIdp(linking)).response).toBeNull();
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
