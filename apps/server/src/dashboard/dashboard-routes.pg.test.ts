import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { signUpTokenIn } from "@agentq/core/testing";
import { nextMailTo } from "../testing/people.ts";
import { serveComposed, type ServedService } from "../testing/serve-composed.ts";

// The dashboard's routes over HTTP without a browser: sessions, the same-origin rule on every
// POST, and two workspaces' people who must never see or change each other's records.
describe("dashboard routes: sessions, origin check, workspaces apart", () => {
  let served: ServedService;
  let a: string;
  let b: string;
  let aAccountId = "";

  const form = (fields: Record<string, string>) => new URLSearchParams(fields).toString();
  const post = (path: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
    fetch(`${served.baseUrl}${path}`, { method: "POST", redirect: "manual", headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: served.baseUrl, Accept: "text/html", ...headers }, body: form(fields) });
  const get = (path: string, cookie?: string) => fetch(`${served.baseUrl}${path}`, { redirect: "manual", headers: { Accept: "text/html", ...(cookie === undefined ? {} : { Cookie: cookie }) } });
  const codeOf = async (res: Response) => /data-error-code="([A-Z_]+)"/.exec(await res.text())?.[1] ?? "none";
  const cookieOf = (res: Response) => res.headers.getSetCookie().map((c) => c.split(";")[0] ?? "").find((c) => c.includes("agentq_session=") && !c.endsWith("=")) ?? "";

  /** Signs up on the dashboard's forms: the sign-up page says to check the mail (no session yet); the mailed token posted on /verify-email signs in. */
  async function signUp(name: string): Promise<string> {
    const address = `owner@${name}.test`;
    const asked = await post("/sign-up", { workspace_name: name, email: address, password: "a long and unusual passphrase 7" });
    expect(asked.status).toBe(200);
    expect(await asked.text()).toContain('data-sign-up="sent"');
    expect(cookieOf(asked)).toBe("");
    const token = signUpTokenIn((await nextMailTo(served.smtp, address, 0)).text) ?? "";
    const res = await post("/verify-email", { token });
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/");
    return cookieOf(res);
  }

  beforeAll(async () => {
    served = await serveComposed();
    a = await signUp("alpha");
    b = await signUp("bravo");
    const created = await post("/accounts", { friendly_name: "alpha-worker" }, { Cookie: a });
    expect(created.status).toBe(303);
    aAccountId = /^\/accounts\/([0-9A-Z]{26})\?done=created$/.exec(created.headers.get("location") ?? "")?.[1] ?? "";
    expect(aAccountId).not.toBe("");
  });
  afterAll(async () => {
    await served?.close();
  });

  it("sends a request without a session to sign-in with the way back, and every page carries the CSP and no-store", async () => {
    const res = await get("/accounts?state=active");
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/sign-in?return_to=%2Faccounts%3Fstate%3Dactive");
    for (const path of ["/", "/accounts", "/messages", "/credentials", "/credentials/new", "/webhooks", "/policies", "/audit", "/projects", "/settings"]) {
      const page = await get(path, a);
      expect(page.status, path).toBe(200);
      expect(page.headers.get("content-security-policy"), path).toContain("frame-ancestors 'none'");
      expect(page.headers.get("cache-control"), path).toBe("no-store");
    }
  });

  it("refuses a POST from another origin, or with neither Origin nor Sec-Fetch-Site, with 403 SVC_CSRF_REJECTED, and creates nothing", async () => {
    const foreign = await post("/accounts", { friendly_name: "evil" }, { Cookie: a, Origin: "https://evil.test" });
    expect(foreign.status).toBe(403);
    expect(await codeOf(foreign)).toBe("SVC_CSRF_REJECTED");
    const bare = await fetch(`${served.baseUrl}/accounts`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", Cookie: a, Accept: "text/html" }, body: form({ friendly_name: "evil" }) });
    expect(bare.status).toBe(403);
    expect(await codeOf(bare)).toBe("SVC_CSRF_REJECTED");
    const signIn = await post("/sign-in", { email: "owner@alpha.test", password: "a long and unusual passphrase 7" }, { Origin: "https://evil.test" });
    expect(signIn.status).toBe(403);
    expect(cookieOf(signIn)).toBe("");
    expect(await (await get("/accounts", a)).text()).not.toContain("evil");
  });

  it("refuses a form post over 256 KB with 413 SVC_PAYLOAD_TOO_LARGE, as REST refuses a body (read through the same limits), and acts on nothing", async () => {
    const padding = "x".repeat(300 * 1024);
    const signIn = await post("/sign-in", { email: "owner@alpha.test", password: "a long and unusual passphrase 7", padding });
    expect(signIn.status).toBe(413);
    expect(await codeOf(signIn)).toBe("SVC_PAYLOAD_TOO_LARGE");
    expect(cookieOf(signIn)).toBe("");
    // Sent without a Content-Length (chunked), the bytes are counted as they arrive.
    const chunked = await fetch(`${served.baseUrl}/accounts`, {
      method: "POST",
      redirect: "manual",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: served.baseUrl, Accept: "text/html", Cookie: a },
      body: new Blob([form({ friendly_name: "too-big", note: padding })]).stream(),
      duplex: "half",
    });
    expect(chunked.status).toBe(413);
    expect(await codeOf(chunked)).toBe("SVC_PAYLOAD_TOO_LARGE");
    expect(await (await get("/accounts", a)).text()).not.toContain("too-big");
  });

  it("serves /verify-email with its script file under the strict CSP; a bad token is shown as 401 SVC_UNAUTHENTICATED, another origin is refused, and neither signs in", async () => {
    const page = await get("/verify-email");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    const html = await page.text();
    const script = /<script src="(\/assets\/fragment-token\.[0-9a-f]{12}\.js)" defer/.exec(html)?.[1] ?? "";
    expect(script).not.toBe("");
    expect(html).not.toMatch(/<script>|<script [^>]*>[^<]/);
    expect((await fetch(`${served.baseUrl}${script}`)).headers.get("content-type")).toContain("javascript");
    const bad = await post("/verify-email", { token: `agq_ev_${"x".repeat(43)}` });
    expect(bad.status).toBe(401);
    expect(await codeOf(bad)).toBe("SVC_UNAUTHENTICATED");
    expect(cookieOf(bad)).toBe("");
    const foreign = await post("/verify-email", { token: `agq_ev_${"x".repeat(43)}` }, { Origin: "https://evil.test" });
    expect(foreign.status).toBe(403);
    expect(await codeOf(foreign)).toBe("SVC_CSRF_REJECTED");
    // The sign-up page of an address that has an account says the same as any other, and mails that address instead.
    const again = await post("/sign-up", { workspace_name: "again", email: "owner@alpha.test", password: "a long and unusual passphrase 7" });
    expect(again.status).toBe(200);
    expect(await again.text()).toContain('data-sign-up="sent"');
    const notice = (await nextMailTo(served.smtp, "owner@alpha.test", 1)).text;
    expect(signUpTokenIn(notice)).toBeNull();
    expect(notice).toMatch(/\/reset-password#token=agq_pr_/);
  });

  it("keeps workspaces apart: another workspace's account is not found, and its actions change nothing", async () => {
    const seen = await get(`/accounts/${aAccountId}`, b);
    expect(seen.status).toBe(404);
    expect(await codeOf(seen)).toBe("SVC_RESOURCE_NOT_FOUND");
    for (const action of ["freeze", "revoke", "rename"]) {
      const res = await post(`/accounts/${aAccountId}/${action}`, { friendly_name: "taken-over" }, { Cookie: b });
      expect(res.status, action).toBe(404);
    }
    const issued = await post("/credentials", { ai_account_id: aAccountId, tier: "operational", scopes: "send", name: "stolen" }, { Cookie: b });
    expect(issued.status).toBe(404);
    expect(await (await get("/accounts", b)).text()).not.toContain("alpha-worker");
    const mine = await (await get(`/accounts/${aAccountId}`, a)).text();
    expect(mine).toContain("alpha-worker");
    expect(mine).toContain('class="badge ok">active');
    expect(await (await get(`/credentials?ai_account_id=${aAccountId}`, a)).text()).toContain("No credentials yet.");
  });

  it("shows a wrong password as 401 SVC_UNAUTHENTICATED on the sign-in page, and signs out for good", async () => {
    const wrong = await post("/sign-in", { email: "owner@alpha.test", password: "not the password at all" });
    expect(wrong.status).toBe(401);
    expect(await codeOf(wrong)).toBe("SVC_UNAUTHENTICATED");
    const out = await post("/sign-out", {}, { Cookie: b });
    expect(out.status).toBe(303);
    expect((await get("/accounts", b)).status).toBe(303);
  });

  it("sets a new password from the mailed link as POST /v1/auth/password-reset/confirm does: every session of the person ends and this browser's cookies are cleared", async () => {
    const asked = await post("/forgot-password", { email: "owner@alpha.test" });
    expect(asked.status).toBe(200);
    const mail = (await nextMailTo(served.smtp, "owner@alpha.test", 2)).text;
    const token = /\/reset-password#token=(agq_pr_[A-Za-z0-9_-]+)/.exec(mail)?.[1] ?? "";
    expect(token).not.toBe("");
    const weak = await post("/reset-password", { token, password: "short" });
    expect(weak.status).toBe(400);
    expect(await codeOf(weak)).toBe("SVC_MALFORMED_REQUEST");
    const set = await post("/reset-password", { token, password: "another long and unusual passphrase 8" }, { Cookie: a });
    expect(set.status).toBe(303);
    expect(set.headers.get("location")).toBe("/sign-in?password_set=1");
    const cleared = set.headers.getSetCookie().filter((c) => c.includes("Max-Age=0")).map((c) => c.split("=")[0]);
    expect(cleared).toEqual(expect.arrayContaining([expect.stringContaining("agentq_session"), expect.stringContaining("agentq_mfa")]));
    expect((await get("/accounts", a)).status).toBe(303);
    const signedIn = await post("/sign-in", { email: "owner@alpha.test", password: "another long and unusual passphrase 8" });
    expect(signedIn.status).toBe(303);
    expect(cookieOf(signedIn)).not.toBe("");
  });
});
