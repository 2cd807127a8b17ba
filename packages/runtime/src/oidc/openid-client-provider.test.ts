import { createServer, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestIdentityProvider, type TestIdentityProvider } from "../testing/identity-provider.ts";
import { TestBrowser } from "../testing/test-browser.ts";
import { createOpenIdClientProvider } from "./openid-client-provider.ts";

// The openid-client adapter against a real OpenID Connect provider (oidc-provider) on 127.0.0.1:
// the whole code flow as a browser walks it, and every check that must refuse.
describe("OidcProvider over openid-client, against oidc-provider", () => {
  const redirectUri = "http://127.0.0.1:9/v1/auth/oidc/callback";
  let idp: TestIdentityProvider;

  beforeAll(async () => {
    idp = await startTestIdentityProvider({ redirectUris: [redirectUri] });
  });
  afterAll(() => idp.close());

  const provider = () => createOpenIdClientProvider({ issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, label: "Test IdP" });
  /** Walks the browser from the provider's URL to the callback (not requested), as after a sign-in at the provider. */
  const walk = async (url: string, browser = new TestBrowser()) => (await browser.navigate(url, { stopBefore: (u) => u.startsWith(redirectUri) })).url;

  it("runs the code flow with PKCE S256, state and nonce, and reads the verified email", async () => {
    const oidc = provider();
    idp.signInAs({ sub: "idp-user-1", email: "Ada@Example.com", email_verified: true, name: "Ada Lovelace" });
    const { url, attempt } = await oidc.authorizationRequest({ redirectUri });
    const before = idp.authorizationRequests.length;
    const callbackUrl = await walk(url);
    const sent = idp.authorizationRequests[before];
    expect(sent?.get("response_type")).toBe("code");
    expect(sent?.get("code_challenge_method")).toBe("S256");
    expect(sent?.get("state")).toBe(attempt.state);
    expect(sent?.get("nonce")).toBe(attempt.nonce);
    expect(sent?.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(sent?.get("code_challenge")).not.toBe(attempt.codeVerifier);
    expect(new URL(callbackUrl).searchParams.get("code")).toBeTruthy();
    const result = await oidc.completeAuthorization({ callbackUrl, redirectUri, attempt });
    expect(result).toEqual({ kind: "identified", identity: { issuer: idp.issuer, subject: "idp-user-1", email: "Ada@Example.com", emailVerified: true, name: "Ada Lovelace" } });
  });

  it("reports an unverified or missing email as it is", async () => {
    const oidc = provider();
    idp.signInAs({ sub: "idp-user-2", email: "bo@example.com", email_verified: false });
    let { url, attempt } = await oidc.authorizationRequest({ redirectUri });
    expect(await oidc.completeAuthorization({ callbackUrl: await walk(url), redirectUri, attempt })).toMatchObject({ kind: "identified", identity: { email: "bo@example.com", emailVerified: false, name: null } });
    idp.signInAs({ sub: "idp-user-3" });
    ({ url, attempt } = await oidc.authorizationRequest({ redirectUri }));
    expect(await oidc.completeAuthorization({ callbackUrl: await walk(url), redirectUri, attempt })).toMatchObject({ kind: "identified", identity: { subject: "idp-user-3", email: null, emailVerified: false } });
  });

  it("refuses a callback whose state was changed, one completed with another attempt's secrets, and a replayed code", async () => {
    const oidc = provider();
    idp.signInAs({ sub: "idp-user-4", email: "cy@example.com", email_verified: true });
    const first = await oidc.authorizationRequest({ redirectUri });
    const callbackUrl = await walk(first.url);
    const tampered = new URL(callbackUrl);
    tampered.searchParams.set("state", "not-the-state");
    expect(await oidc.completeAuthorization({ callbackUrl: tampered.href, redirectUri, attempt: first.attempt })).toMatchObject({ kind: "refused" });
    const other = await oidc.authorizationRequest({ redirectUri });
    expect(await oidc.completeAuthorization({ callbackUrl, redirectUri, attempt: { ...other.attempt, state: first.attempt.state } })).toMatchObject({ kind: "refused" });
    expect(await oidc.completeAuthorization({ callbackUrl, redirectUri, attempt: { ...first.attempt, nonce: other.attempt.nonce } })).toMatchObject({ kind: "refused" });
    const second = await oidc.authorizationRequest({ redirectUri });
    const secondCallback = await walk(second.url);
    expect(await oidc.completeAuthorization({ callbackUrl: secondCallback, redirectUri, attempt: second.attempt })).toMatchObject({ kind: "identified" });
    expect(await oidc.completeAuthorization({ callbackUrl: secondCallback, redirectUri, attempt: second.attempt })).toMatchObject({ kind: "refused" });
  });

  it("refuses a callback carrying the provider's error (the person cancelled)", async () => {
    const oidc = provider();
    idp.denyNext();
    const { url, attempt } = await oidc.authorizationRequest({ redirectUri });
    const callbackUrl = await walk(url);
    expect(new URL(callbackUrl).searchParams.get("error")).toBe("access_denied");
    expect(await oidc.completeAuthorization({ callbackUrl, redirectUri, attempt })).toEqual({ kind: "refused", reason: "provider_error:access_denied" });
  });

  it("rejects (unreachable, not refused) when the provider cannot be reached, and refuses plain http off loopback", async () => {
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", () => resolve()));
    const { port } = probe.address() as AddressInfo;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const down = createOpenIdClientProvider({ issuer: `http://127.0.0.1:${port}`, clientId: "x", clientSecret: "y", label: "Down" });
    await expect(down.authorizationRequest({ redirectUri })).rejects.toThrow();
    expect(() => createOpenIdClientProvider({ issuer: "http://idp.example.com", clientId: "x", clientSecret: "y", label: "Plain" })).toThrow(/https/);
  });
});
