import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { answerConsent } from "./testing/oauth-consent.ts";
import { signInPerson, signUpPerson, type SignedInPerson } from "./testing/people.ts";
import { serveComposed, type ServedService } from "./testing/serve-composed.ts";

// Issue 25, item 8 (DESIGN §2b, §2c): the origin check compares the whole origin (scheme, host
// and port) with PUBLIC_BASE_URL's. Before, an Origin naming the right host with another scheme
// (https://127.0.0.1:PORT on an http service) passed. One check serves the REST routes, the
// dashboard's form posts and the OAuth consent POST; each is driven over real HTTP here with
// origins wrong in one part, the right origin, and no Origin with Sec-Fetch-Site same-origin.

type Json = Record<string, any>;
const PASSWORD = "a long and quiet river";

describe("the origin check compares scheme, host and port with PUBLIC_BASE_URL's (REST, dashboard, OAuth consent)", () => {
  let served: ServedService;
  let base: string;
  let owner: SignedInPerson;
  let accountId: string;
  let n = 0;

  /** Origins that differ from the service's (http://127.0.0.1:PORT) in one part each. */
  const foreignOrigins = (): Array<[string, string]> => {
    const port = Number(new URL(base).port);
    return [
      ["wrong scheme", `https://127.0.0.1:${port}`],
      ["wrong port", `http://127.0.0.1:${port + 1}`],
      ["wrong host (another name of loopback)", `http://localhost:${port}`],
      ["wrong host", `http://evil.example:${port}`],
      ["opaque origin", "null"],
    ];
  };
  /** The header sets a browser page of the service itself sends with a POST. */
  const ownOrigin = (): Array<[string, Record<string, string>]> => [
    ["right origin", { Origin: base }],
    ["no Origin, Sec-Fetch-Site same-origin", { "Sec-Fetch-Site": "same-origin" }],
  ];

  const call = async (method: string, path: string, headers: Record<string, string>, body?: unknown): Promise<{ status: number; body: Json }> => {
    const res = await fetch(`${base}${path}`, { method, headers: { ...headers, ...(body === undefined ? {} : { "Content-Type": "application/json" }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    return { status: res.status, body: text === "" ? {} : (JSON.parse(text) as Json) };
  };
  const codeOfPage = async (res: Response) => /data-error-code="([A-Z_]+)"/.exec(await res.text())?.[1] ?? "none";
  const formPost = (path: string, fields: Record<string, string>, headers: Record<string, string>) =>
    fetch(`${base}${path}`, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded", Accept: "text/html", ...headers }, body: new URLSearchParams(fields).toString() });
  const restWrites = (cookie: string) => [
    { name: "POST /v1/people", send: (h: Record<string, string>) => call("POST", "/v1/people", { Cookie: cookie, ...h }, { email: `invitee-${++n}@origins.test`, role: "viewer" }), created: 201 },
    { name: "POST /v1/credentials", send: (h: Record<string, string>) => call("POST", "/v1/credentials", { Cookie: cookie, ...h }, { ai_account_id: accountId, tier: "operational", scopes: ["send"], name: `box-${++n}` }), created: 201 },
  ];

  beforeAll(async () => {
    served = await serveComposed();
    base = served.baseUrl;
    owner = await signUpPerson(base, { email: "owner@origins.test", password: PASSWORD, workspaceName: "origins", inbox: served.smtp });
    const account = await call("POST", "/v1/ai-accounts", { Cookie: owner.cookie, Origin: base }, { friendly_name: "origin-box" });
    expect(account.status).toBe(201);
    accountId = account.body.id as string;
  });
  afterAll(async () => {
    await served?.close();
  });

  it("REST: a cookie write from an origin wrong in scheme, port or host is refused 403 SVC_CSRF_REJECTED (POST /v1/people, /v1/credentials, sign-out)", async () => {
    for (const [what, origin] of foreignOrigins()) {
      for (const write of restWrites(owner.cookie)) {
        const res = await write.send({ Origin: origin });
        expect([res.status, res.body.error?.code], `${write.name}, ${what}`).toEqual([403, "SVC_CSRF_REJECTED"]);
        // Sec-Fetch-Site does not rescue a foreign Origin.
        const both = await write.send({ Origin: origin, "Sec-Fetch-Site": "same-origin" });
        expect([both.status, both.body.error?.code], `${write.name}, ${what} + Sec-Fetch-Site`).toEqual([403, "SVC_CSRF_REJECTED"]);
      }
      const out = await call("POST", "/v1/auth/sign-out", { Cookie: owner.cookie, Origin: origin });
      expect([out.status, out.body.error?.code], `sign-out, ${what}`).toEqual([403, "SVC_CSRF_REJECTED"]);
      expect((await call("GET", "/v1/me", { Cookie: owner.cookie })).status, `still signed in after ${what}`).toBe(200);
    }
    for (const write of restWrites(owner.cookie)) {
      const bare = await write.send({});
      expect([bare.status, bare.body.error?.code], `${write.name} with neither Origin nor Sec-Fetch-Site`).toEqual([403, "SVC_CSRF_REJECTED"]);
    }
  });

  it("REST: the same cookie writes from the service's own origin, or with Sec-Fetch-Site same-origin and no Origin, are served", async () => {
    for (const [what, headers] of ownOrigin()) {
      for (const write of restWrites(owner.cookie)) {
        const res = await write.send(headers);
        expect(res.status, `${write.name}, ${what}: ${JSON.stringify(res.body)}`).toBe(write.created);
      }
      const session = await signInPerson(base, { email: "owner@origins.test", password: PASSWORD });
      expect((await call("POST", "/v1/auth/sign-out", { Cookie: session.cookie, ...headers })).status, `sign-out, ${what}`).toBe(204);
      expect((await call("GET", "/v1/me", { Cookie: session.cookie })).status, `signed out, ${what}`).toBe(401);
    }
  });

  it("REST: a sign-in carrying an Origin wrong in scheme, port or host is refused; from the own origin it signs in", async () => {
    for (const [what, origin] of foreignOrigins()) {
      const res = await call("POST", "/v1/auth/sign-in", { Origin: origin }, { email: "owner@origins.test", password: PASSWORD });
      expect([res.status, res.body.error?.code], what).toEqual([403, "SVC_CSRF_REJECTED"]);
    }
    expect((await call("POST", "/v1/auth/sign-in", { Origin: base }, { email: "owner@origins.test", password: PASSWORD })).status).toBe(200);
  });

  it("dashboard: a form post from an origin wrong in scheme, port or host is refused 403 SVC_CSRF_REJECTED; from its own origin it is served", async () => {
    for (const [what, origin] of foreignOrigins()) {
      const res = await formPost("/accounts", { friendly_name: `evil-${++n}` }, { Cookie: owner.cookie, Origin: origin });
      expect(res.status, what).toBe(403);
      expect(await codeOfPage(res), what).toBe("SVC_CSRF_REJECTED");
    }
    for (const [what, headers] of ownOrigin()) {
      const res = await formPost("/accounts", { friendly_name: `kept-${++n}` }, { Cookie: owner.cookie, ...headers });
      expect(res.status, what).toBe(303);
      expect(res.headers.get("location"), what).toMatch(/^\/accounts\/[0-9A-Z]{26}\?done=created$/);
    }
  });

  it("OAuth consent: a decision posted from an origin wrong in scheme, port or host is refused 403 SVC_CSRF_REJECTED; from its own origin it redirects with a code", async () => {
    const redirect = "https://app.example/origins";
    const reg = await fetch(`${base}/oauth/register`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ client_name: "Origins", redirect_uris: [redirect] }) });
    expect(reg.status).toBe(201);
    const clientId = ((await reg.json()) as { client_id: string }).client_id;
    const url = `${base}/oauth/authorize?${new URLSearchParams({ response_type: "code", client_id: clientId, redirect_uri: redirect, code_challenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM", code_challenge_method: "S256", state: "st", scope: "send" }).toString()}`;
    for (const [what, origin] of foreignOrigins()) {
      const { answer } = await answerConsent(url, owner.cookie, { approve: true, aiAccount: accountId, originHeaders: { Origin: origin } });
      expect(answer?.status, what).toBe(403);
      expect(answer?.headers.get("location"), what).toBeNull();
      expect(await codeOfPage(answer as Response), what).toBe("SVC_CSRF_REJECTED");
    }
    for (const [what, headers] of ownOrigin()) {
      const { answer } = await answerConsent(url, owner.cookie, { approve: true, aiAccount: accountId, originHeaders: headers });
      expect(answer?.status, what).toBe(303);
      expect(new URL(answer?.headers.get("location") ?? "http://x/").searchParams.get("code"), what).toMatch(/.+/);
    }
  });
});
