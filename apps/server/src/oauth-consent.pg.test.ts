import { s256Challenge } from "@agentq/core";
import { newCodeVerifier } from "@agentq/core/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerConsent, parseConsentForm } from "./testing/oauth-consent.ts";
import { seedPerson, signInPerson, signUpPerson, type SignedInPerson } from "./testing/people.ts";
import { serveComposed, type ServedService } from "./testing/serve-composed.ts";

// Issue 15, slice 2: GET /oauth/authorize and the consent decision over real HTTP on PostgreSQL
// (the composed server): checks before any redirect, sign-in first, the consent page and its
// headers, approve (existing or new AI account) and deny, the form's token, the viewer rule, and
// another workspace's AI account. Codes and statuses only.

type Json = Record<string, any>;
const PASSWORD = "a long and quiet river";

describe("OAuth authorization endpoint and consent (PostgreSQL, real HTTP)", () => {
  let served: ServedService;
  let base: string;
  let owner: SignedInPerson;
  let other: SignedInPerson;
  let viewer: SignedInPerson;

  const register = async (redirectUris: string[], name = "Claude Code"): Promise<string> => {
    const res = await fetch(`${base}/oauth/register`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ client_name: name, redirect_uris: redirectUris }) });
    expect(res.status).toBe(201);
    return ((await res.json()) as { client_id: string }).client_id;
  };
  const authorizeUrl = (params: Record<string, string>) => `${base}/oauth/authorize?${new URLSearchParams(params).toString()}`;
  const pkce = () => {
    const verifier = newCodeVerifier();
    return { verifier, challenge: s256Challenge(verifier) };
  };
  const request = (clientId: string, redirectUri: string, challenge: string, extra: Record<string, string> = {}) => ({ response_type: "code", client_id: clientId, redirect_uri: redirectUri, code_challenge: challenge, code_challenge_method: "S256", state: "st-123", ...extra });
  const errorCodeOfPage = (html: string) => /data-error-code="([A-Z_]+)"/.exec(html)?.[1];
  const exchange = (clientId: string, code: string, redirectUri: string, verifier: string) =>
    fetch(`${base}/oauth/token`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ grant_type: "authorization_code", client_id: clientId, code, redirect_uri: redirectUri, code_verifier: verifier }).toString() });

  beforeAll(async () => {
    served = await serveComposed();
    base = served.baseUrl;
    owner = await signUpPerson(base, { email: "owner@consent.test", password: PASSWORD, workspaceName: "consent-alpha", inbox: served.smtp });
    other = await signUpPerson(base, { email: "owner@consent-beta.test", password: PASSWORD, workspaceName: "consent-beta", inbox: served.smtp });
    await seedPerson(served.service.deps, { workspaceId: (owner.body.workspace as Json).id as string, email: "viewer@consent.test", role: "viewer", password: PASSWORD });
    viewer = await signInPerson(base, { email: "viewer@consent.test", password: PASSWORD });
  });
  afterAll(async () => {
    await served?.close();
  });

  it("shows an unknown client, a missing or unregistered redirect URI as a page (400), never redirecting", async () => {
    const clientId = await register(["https://app.example/cb", "http://127.0.0.1/callback"]);
    const { challenge } = pkce();
    const cases = [
      request("01ARZ3NDEKTSV4RRFFQ69G5FAV", "https://app.example/cb", challenge),
      request("not-a-client", "https://app.example/cb", challenge),
      request(clientId, "https://evil.example/cb", challenge),
      request(clientId, "https://app.example/cb/other", challenge),
      request(clientId, "http://localhost:5000/callback", challenge),
      { response_type: "code", client_id: clientId, code_challenge: challenge, code_challenge_method: "S256" },
    ];
    for (const params of cases) {
      for (const cookie of [undefined, owner.cookie]) {
        const res = await fetch(authorizeUrl(params), { headers: { Accept: "text/html", ...(cookie === undefined ? {} : { Cookie: cookie }) }, redirect: "manual" });
        expect(res.status, JSON.stringify(params)).toBe(400);
        expect(res.headers.get("location")).toBeNull();
        expect(errorCodeOfPage(await res.text())).toBe("SVC_MALFORMED_REQUEST");
      }
    }
    const repeated = await fetch(`${authorizeUrl(request(clientId, "https://app.example/cb", challenge))}&redirect_uri=${encodeURIComponent("https://app.example/cb")}`, { redirect: "manual" });
    expect(repeated.status).toBe(400);
    expect(repeated.headers.get("location")).toBeNull();
  });

  it("answers a bad request of a trusted redirect URI at that URI with error and the state (PKCE S256 required, response_type=code, resource)", async () => {
    const redirect = "https://app.example/cb";
    const clientId = await register([redirect]);
    const { challenge } = pkce();
    const cases: Array<[Record<string, string>, string]> = [
      [{ ...request(clientId, redirect, challenge), response_type: "token" }, "unsupported_response_type"],
      [(({ code_challenge: _c, ...rest }) => rest)(request(clientId, redirect, challenge)), "invalid_request"],
      [(({ code_challenge_method: _m, ...rest }) => rest)(request(clientId, redirect, challenge)), "invalid_request"],
      [{ ...request(clientId, redirect, challenge), code_challenge_method: "plain" }, "invalid_request"],
      [{ ...request(clientId, redirect, "short") }, "invalid_request"],
      [{ ...request(clientId, redirect, challenge), resource: "https://elsewhere.example/mcp" }, "invalid_target"],
    ];
    for (const [params, error] of cases) {
      const res = await fetch(authorizeUrl(params), { headers: { Cookie: owner.cookie }, redirect: "manual" });
      expect(res.status, JSON.stringify(params)).toBe(303);
      const location = new URL(res.headers.get("location") as string);
      expect(`${location.origin}${location.pathname}`).toBe(redirect);
      expect(location.searchParams.get("error")).toBe(error);
      expect(location.searchParams.get("state")).toBe("st-123");
      expect(location.searchParams.get("iss")).toBe(base);
      expect(location.searchParams.get("code")).toBeNull();
    }
    const repeatedState = await fetch(`${authorizeUrl(request(clientId, redirect, challenge))}&state=again`, { redirect: "manual" });
    expect(repeatedState.status).toBe(303);
    expect(new URL(repeatedState.headers.get("location") as string).searchParams.get("error")).toBe("invalid_request");
  });

  it("sends a browser without a session to the sign-in page, which returns it to the very authorization URL", async () => {
    const clientId = await register(["http://127.0.0.1/callback"]);
    const { challenge } = pkce();
    const url = authorizeUrl(request(clientId, "http://127.0.0.1:41234/callback", challenge, { scope: "send ack" }));
    const res = await fetch(url, { redirect: "manual" });
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get("location") as string, base);
    expect(location.pathname).toBe("/sign-in");
    const returnTo = location.searchParams.get("return_to") as string;
    expect(new URL(returnTo, base).toString()).toBe(url);
    // The dashboard's sign-in form posts it back and lands there.
    const signIn = await fetch(`${base}/sign-in`, { method: "POST", headers: { Origin: base, "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams({ email: "owner@consent.test", password: PASSWORD, return_to: returnTo }).toString(), redirect: "manual" });
    expect(signIn.status).toBe(303);
    expect(new URL(signIn.headers.get("location") as string, base).toString()).toBe(url);
  });

  it("renders the consent page with the client, the redirect host, the scopes, a token, no framing and no caching", async () => {
    const clientId = await register(["http://127.0.0.1/callback"], "Inspector <b>bold</b>");
    const { challenge } = pkce();
    const res = await fetch(authorizeUrl(request(clientId, "http://127.0.0.1:41235/callback", challenge, { scope: "send get_pending manage_credentials" })), { headers: { Cookie: owner.cookie } });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-frame-options")).toBe("DENY");
    const csp = res.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("form-action 'self' http://127.0.0.1:41235");
    expect(res.headers.get("cache-control")).toBe("no-store");
    const html = await res.text();
    expect(html).toContain("Inspector &lt;b&gt;bold&lt;/b&gt;");
    expect(html).toContain("127.0.0.1:41235");
    // An administrative scope is never granted to an OAuth client.
    expect(html).toContain("<code>send</code>");
    expect(html).toContain("<code>get_pending</code>");
    expect(html).not.toContain("<code>manage_credentials</code>");
    const form = parseConsentForm(html);
    expect(form.hidden.csrf_token).toMatch(/^[0-9a-f]{64}$/);
    expect(form.canApprove).toBe(true);
    expect(form.hidden.state).toBe("st-123");
  });

  it("approves as a new AI account created in the click: 303 to the loopback redirect (any port) with code, state and iss; the code exchanges once", async () => {
    const clientId = await register(["http://127.0.0.1/callback"]);
    const { verifier, challenge } = pkce();
    const redirect = "http://127.0.0.1:41236/callback";
    const { answer } = await answerConsent(authorizeUrl(request(clientId, redirect, challenge)), owner.cookie, { approve: true, aiAccount: "new", newAccountName: "claude-code" });
    expect(answer?.status).toBe(303);
    expect(answer?.headers.get("cache-control")).toBe("no-store");
    const location = new URL(answer?.headers.get("location") as string);
    expect(`${location.origin}${location.pathname}`).toBe(redirect);
    expect(location.searchParams.get("state")).toBe("st-123");
    expect(location.searchParams.get("iss")).toBe(base);
    const code = location.searchParams.get("code") as string;
    expect(code).toMatch(/^agq_ac_/);
    const token = await exchange(clientId, code, redirect, verifier);
    expect(token.status).toBe(200);
    const access = ((await token.json()) as Json).access_token as string;
    const me = (await (await fetch(`${base}/v1/me`, { headers: { Authorization: `Bearer ${access}` } })).json()) as Json;
    expect(me.ai_account.friendly_name).toBe("claude-code");
    expect((await exchange(clientId, code, redirect, verifier)).status).toBe(400);
  });

  it("lets the person choose the toolsets: the grant keeps the scopes of those left checked, and the MCP list follows; none checked is refused on the page", async () => {
    const redirect = "http://127.0.0.1:41240/callback";
    const clientId = await register(["http://127.0.0.1/callback"], "Toolsets");
    const { verifier, challenge } = pkce();
    const url = authorizeUrl(request(clientId, redirect, challenge, { scope: "send get_pending write_session_state" }));
    const none = await answerConsent(url, owner.cookie, { approve: true, aiAccount: "new", newAccountName: "toolsets-none", toolsets: [] });
    expect(none.form.toolsets).toEqual({ offered: ["messaging", "session_state"], checked: ["messaging", "session_state"] });
    expect(none.answer?.status).toBe(400);
    expect(errorCodeOfPage(await (none.answer as Response).text())).toBe("SVC_MALFORMED_REQUEST");
    const { answer } = await answerConsent(url, owner.cookie, { approve: true, aiAccount: "new", newAccountName: "toolsets-messaging", toolsets: ["messaging"] });
    expect(answer?.status).toBe(303);
    const token = await exchange(clientId, new URL(answer?.headers.get("location") as string).searchParams.get("code") as string, redirect, verifier);
    const body = (await token.json()) as Json;
    expect((body.scope as string).split(" ").sort()).toEqual(["get_pending", "send"]);
    const list = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { Authorization: `Bearer ${body.access_token as string}`, "Content-Type": "application/json", Accept: "application/json, text/event-stream" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    const names = (((await list.json()) as Json).result.tools as { name: string }[]).map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(["send", "get_pending"]));
    expect(names).not.toContain("record_decision");
  });

  it("approves as an existing AI account, and a private-use redirect scheme works", async () => {
    const redirect = "cursor://anysphere.cursor-retrieval/oauth/callback";
    const clientId = await register([redirect], "Cursor");
    const { verifier, challenge } = pkce();
    const { page, form, answer } = await answerConsent(authorizeUrl(request(clientId, redirect, challenge)), owner.cookie, { approve: true });
    expect(page.headers.get("content-security-policy")).toContain("form-action 'self' cursor:");
    expect(form.accountIds.length).toBeGreaterThan(0);
    expect(answer?.status).toBe(303);
    const location = new URL(answer?.headers.get("location") as string);
    expect(location.protocol).toBe("cursor:");
    const res = await exchange(clientId, location.searchParams.get("code") as string, redirect, verifier);
    expect(res.status).toBe(200);
    const me = (await (await fetch(`${base}/v1/me`, { headers: { Authorization: `Bearer ${((await res.json()) as Json).access_token}` } })).json()) as Json;
    expect(me.ai_account.id).toBe(form.accountIds[0]);
  });

  it("deny sends error=access_denied with the state, and issues nothing", async () => {
    const redirect = "https://app.example/deny";
    const clientId = await register([redirect]);
    const { challenge } = pkce();
    const { answer } = await answerConsent(authorizeUrl(request(clientId, redirect, challenge)), owner.cookie, { approve: false });
    expect(answer?.status).toBe(303);
    const location = new URL(answer?.headers.get("location") as string);
    expect(location.searchParams.get("error")).toBe("access_denied");
    expect(location.searchParams.get("state")).toBe("st-123");
    expect(location.searchParams.get("code")).toBeNull();
  });

  it("refuses a consent POST without the page's token, with another session's, with an altered request, or from another origin (403 SVC_CSRF_REJECTED)", async () => {
    const redirect = "https://app.example/csrf";
    const clientId = await register([redirect]);
    const { challenge } = pkce();
    const url = authorizeUrl(request(clientId, redirect, challenge, { scope: "send" }));
    const alterations: Array<(f: Record<string, string>) => void> = [
      (f) => delete f.csrf_token,
      (f) => (f.csrf_token = "0".repeat(64)),
      (f) => (f.scope = "send get_pending ack"),
      (f) => (f.state = "another"),
    ];
    for (const alter of alterations) {
      const { answer } = await answerConsent(url, owner.cookie, { approve: true, alter });
      expect(answer?.status).toBe(403);
      expect(answer?.headers.get("location")).toBeNull();
      expect(errorCodeOfPage(await (answer as Response).text())).toBe("SVC_CSRF_REJECTED");
    }
    // A token rendered for the owner, posted with another person's session.
    const page = await fetch(url, { headers: { Cookie: owner.cookie } });
    const fields = { ...parseConsentForm(await page.text()).hidden, decision: "approve", ai_account: "new", new_account_name: "stolen" };
    const foreign = await fetch(`${base}/oauth/authorize`, { method: "POST", headers: { Cookie: other.cookie, Origin: base, "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString(), redirect: "manual" });
    expect(foreign.status).toBe(403);
    const crossSite = await fetch(`${base}/oauth/authorize`, { method: "POST", headers: { Cookie: owner.cookie, Origin: "https://evil.example", "Content-Type": "application/x-www-form-urlencoded" }, body: new URLSearchParams(fields).toString(), redirect: "manual" });
    expect(crossSite.status).toBe(403);
    expect(crossSite.headers.get("location")).toBeNull();
  });

  it("lets a viewer see the request and deny it, but refuses the viewer's approval (403 SVC_TIER_INSUFFICIENT)", async () => {
    const redirect = "https://app.example/viewer";
    const clientId = await register([redirect]);
    const { challenge } = pkce();
    const url = authorizeUrl(request(clientId, redirect, challenge));
    const approved = await answerConsent(url, viewer.cookie, { approve: true, aiAccount: "new", newAccountName: "viewer-made" });
    expect(approved.form.canApprove).toBe(false);
    expect(approved.answer?.status).toBe(403);
    expect(approved.answer?.headers.get("location")).toBeNull();
    expect(errorCodeOfPage(await (approved.answer as Response).text())).toBe("SVC_TIER_INSUFFICIENT");
    const denied = await answerConsent(url, viewer.cookie, { approve: false });
    expect(new URL(denied.answer?.headers.get("location") as string).searchParams.get("error")).toBe("access_denied");
  });

  it("refuses another workspace's AI account (404) and a taken new name (409), shown on the consent page", async () => {
    const redirect = "https://app.example/isolation";
    const clientId = await register([redirect]);
    const { challenge } = pkce();
    const url = authorizeUrl(request(clientId, redirect, challenge));
    const beta = await answerConsent(url, other.cookie, { approve: true, aiAccount: "new", newAccountName: "beta-agent" });
    expect(beta.answer?.status).toBe(303);
    const betaAccounts = parseConsentForm(await (await fetch(url, { headers: { Cookie: other.cookie } })).text()).accountIds;
    expect(betaAccounts.length).toBe(1);
    const foreign = await answerConsent(url, owner.cookie, { approve: true, aiAccount: betaAccounts[0] });
    expect(foreign.answer?.status).toBe(404);
    expect(errorCodeOfPage(await (foreign.answer as Response).text())).toBe("SVC_RESOURCE_NOT_FOUND");
    const taken = await answerConsent(url, other.cookie, { approve: true, aiAccount: "new", newAccountName: "beta-agent" });
    expect(taken.answer?.status).toBe(409);
    expect(errorCodeOfPage(await (taken.answer as Response).text())).toBe("SVC_RESOURCE_CONFLICT");
  });
});
