import type { MailMessage, Mailer } from "@agentq/core";
import { TEST_SECRETS } from "@agentq/core/testing";
import { Secret, TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveOnFreePort } from "@agentq/mcp/testing";
import { composeService } from "./compose.ts";
import { createLogger } from "@agentq/runtime";
import { serveComposed, type ServedService } from "./testing/serve-composed.ts";
import { cookieFrom, PENDING_MFA_COOKIE, SESSION_COOKIE, signUpPerson, TRUSTED_LOOPBACK } from "./testing/people.ts";

// Issue 25 (safe under hostile input), items 3, 6 and 7, over real HTTP on PostgreSQL with real
// concurrency: throttles decided before the work they guard (sign-in, MFA, step-up), the
// per-client-address limit of the anonymous routes (shared by every process on the database),
// and a password reset whose answer does not wait for its work. The socket (127.0.0.1) is a
// trusted proxy here, so each test speaks from its own client address (X-Forwarded-For).

type Json = Record<string, any>;
const PASSWORD = "a long and quiet river";
const NOTICE = {
  kind: "dsa",
  category: "scams_and_fraud",
  explanation: "A fake invoice.",
  locations: [{ type: "url", url: "https://example.org/invoice" }],
  notifier: { name: "Nora", email: "nora@example.org" },
  good_faith_statement: true,
};

/** A mailer whose sends wait, after `shut()`, until `open()` (a slow or stuck mail transport); open at first. */
class GatedMailer implements Mailer {
  readonly sent: MailMessage[] = [];
  /** Sends that arrived and wait for the gate. */
  waiting = 0;
  private release: () => void = () => undefined;
  private gate: Promise<void> = Promise.resolve();
  private arrivals: (() => void)[] = [];

  async send(message: MailMessage): Promise<void> {
    this.waiting++;
    for (const told of this.arrivals.splice(0)) told();
    await this.gate;
    this.waiting--;
    this.sent.push(message);
  }
  /** Resolves once a send waits at the gate. */
  arrived(): Promise<void> {
    return this.waiting > 0 ? Promise.resolve() : new Promise((resolve) => this.arrivals.push(resolve));
  }
  /** From now on, sends wait for `open()`. */
  shut(): void {
    this.gate = new Promise((resolve) => (this.release = resolve));
  }
  open(): void {
    this.release();
  }
  /** The mails handed over to `address` (a test inbox for `signUpPerson`). */
  to(address: string): MailMessage[] {
    return this.sent.filter((m) => m.to === address);
  }
}

describe("throttles and anonymous limits (PostgreSQL, real HTTP, real concurrency)", () => {
  let served: ServedService;
  const mailer = new GatedMailer();
  let n = 0;
  const email = (tag: string) => `${tag}-${++n}@throttle.test`;
  let addressSeq = 0;
  /** A fresh client address (TEST-NET-3) for one test. */
  const newAddress = () => `203.0.113.${++addressSeq}`;

  const call = async (method: string, path: string, p: { from: string; cookie?: string; body?: unknown; raw?: boolean } ): Promise<{ status: number; body: Json; res: Response }> => {
    const headers: Record<string, string> = { "X-Forwarded-For": p.from };
    if (p.cookie !== undefined) {
      headers.Cookie = p.cookie;
      headers.Origin = served.baseUrl;
    }
    if (p.body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(`${served.baseUrl}${path}`, { method, headers, ...(p.body === undefined ? {} : { body: JSON.stringify(p.body) }) });
    const text = await res.text();
    return { status: res.status, body: text === "" ? {} : (JSON.parse(text) as Json), res };
  };
  const statusCounts = (results: { status: number }[]): Record<number, number> => {
    const counts: Record<number, number> = {};
    for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
    return counts;
  };
  const auditCount = async (workspaceId: string, activity: string): Promise<number> => {
    const [row] = await served.db.sql<{ n: number }[]>`select count(*)::int as n from audit_log where workspace_id = ${workspaceId} and activity = ${activity}`;
    return row?.n ?? 0;
  };
  /** Signs a person up through the mailed link, from a client address of its own. */
  const signUp = async (tag: string): Promise<{ address: string; workspaceId: string; personId: string }> => {
    const address = email(tag);
    const signedUp = await signUpPerson(served.baseUrl, { email: address, password: PASSWORD, workspaceName: tag, inbox: mailer }, { "X-Forwarded-For": newAddress() });
    return { address, workspaceId: (signedUp.body.workspace as Json).id as string, personId: (signedUp.body.person as Json).id as string };
  };
  /** The mails to `address` carrying a password-reset link (not its sign-up's verification mail). */
  const resetMails = (address: string) => mailer.to(address).filter((m) => /\/reset-password#token=agq_pr_/.test(m.text));
  const codeAt = (secret: string, offsetSteps = 0) => new TOTP({ secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: 30 }).generate({ timestamp: Date.now() + offsetSteps * 30_000 });
  /** Six-digit codes that are not valid now (nor one step either side, nor in the next step). */
  const wrongCodes = (secret: string, count: number): string[] => {
    const valid = new Set([-1, 0, 1, 2].map((s) => codeAt(secret, s)));
    const codes: string[] = [];
    for (let i = 0; codes.length < count; i++) {
      const code = String((i * 7_919 + 104_729) % 1_000_000).padStart(6, "0");
      if (!valid.has(code)) codes.push(code);
    }
    return codes;
  };
  /** A person with TOTP on: signs up, enrols and confirms through the API; returns the secret. */
  const withMfa = async (tag: string): Promise<{ address: string; secret: string; workspaceId: string }> => {
    const person = await signUp(tag);
    const from = newAddress();
    const signedIn = await call("POST", "/v1/auth/sign-in", { from, body: { email: person.address, password: PASSWORD } });
    const cookie = `${SESSION_COOKIE}=${cookieFrom(signedIn.res, SESSION_COOKIE) ?? ""}`;
    const enrolled = await call("POST", "/v1/auth/mfa/totp/enroll", { from, cookie });
    expect(enrolled.status).toBe(200);
    const secret = enrolled.body.secret as string;
    expect((await call("POST", "/v1/auth/mfa/totp/confirm", { from, cookie, body: { code: codeAt(secret) } })).status).toBe(200);
    return { address: person.address, secret, workspaceId: person.workspaceId };
  };
  const pendingMfaCookie = async (address: string, from: string): Promise<string> => {
    const pw = await call("POST", "/v1/auth/sign-in", { from, body: { email: address, password: PASSWORD } });
    expect(pw.body).toEqual({ mfa_required: true });
    return `${PENDING_MFA_COOKIE}=${cookieFrom(pw.res, PENDING_MFA_COOKIE) ?? ""}`;
  };

  beforeAll(async () => {
    served = await serveComposed({ mailer, origin: TRUSTED_LOOPBACK });
  });
  afterAll(async () => {
    mailer.open();
    await served?.close();
  });

  it("99 wrong passwords and the right one in parallel from one address: exactly 10 checked (401), the rest 429; the right one is 429 afterwards", async () => {
    const person = await signUp("burst");
    const from = newAddress();
    const bodies = Array.from({ length: 100 }, (_, i) => ({ email: person.address, password: i === 50 ? PASSWORD : `wrong password number ${i}` }));
    const results = await Promise.all(bodies.map((body) => call("POST", "/v1/auth/sign-in", { from, body })));
    const counts = statusCounts(results);
    expect(counts[401]).toBe(10);
    expect((counts[401] ?? 0) + (counts[429] ?? 0) + (counts[200] ?? 0)).toBe(100);
    expect(counts[200] ?? 0).toBeLessThanOrEqual(1);
    for (const r of results.filter((x) => x.status === 429)) {
      expect(r.body.error).toMatchObject({ code: "SVC_RATE_LIMITED", details: { bucket: "sign_in_email", limit: 10, window: "PT15M" } });
      expect(Number(r.res.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect(await auditCount(person.workspaceId, "person.sign_in_failed")).toBe(10);
    const after = await call("POST", "/v1/auth/sign-in", { from: newAddress(), body: { email: person.address, password: PASSWORD } });
    expect(after.status).toBe(429);
    expect(after.body.error.code).toBe("SVC_RATE_LIMITED");
  });

  it("40 wrong sign-ins for 40 emails in parallel from one address: exactly 30 checked, the rest 429 (per-address window)", async () => {
    const from = newAddress();
    const results = await Promise.all(Array.from({ length: 40 }, (_, i) => call("POST", "/v1/auth/sign-in", { from, body: { email: `nobody-${i}@throttle.test`, password: "not the password at all" } })));
    expect(statusCounts(results)).toEqual({ 401: 30, 429: 10 });
    for (const r of results.filter((x) => x.status === 429)) expect(r.body.error).toMatchObject({ code: "SVC_RATE_LIMITED", details: { bucket: "sign_in_address", limit: 30 } });
  });

  it("200 parallel TOTP guesses on one pending-MFA session: exactly 10 checked, 190 refused with 429; the right code is 429 afterwards", async () => {
    const person = await withMfa("totp-burst");
    const from = newAddress();
    const cookie = await pendingMfaCookie(person.address, from);
    const results = await Promise.all(wrongCodes(person.secret, 200).map((code) => call("POST", "/v1/auth/mfa/verify", { from, cookie, body: { code } })));
    expect(statusCounts(results), served?.faults().join("\n")).toEqual({ 401: 10, 429: 190 });
    for (const r of results.filter((x) => x.status === 429)) expect(r.body.error.code).toBe("SVC_RATE_LIMITED");
    expect(await auditCount(person.workspaceId, "person.mfa_failed")).toBe(10);
    expect((await call("POST", "/v1/auth/mfa/verify", { from, cookie, body: { code: codeAt(person.secret, 1) } })).status).toBe(429);
  });

  it("50 parallel step-up guesses: exactly 10 checked, 40 refused with 429", async () => {
    const person = await withMfa("step-up-burst");
    const from = newAddress();
    const pending = await pendingMfaCookie(person.address, from);
    // The confirmation spent this step's code: the next step's is accepted (one step either side).
    const verified = await call("POST", "/v1/auth/mfa/verify", { from, cookie: pending, body: { code: codeAt(person.secret, 1) } });
    expect(verified.status).toBe(200);
    const cookie = `${SESSION_COOKIE}=${cookieFrom(verified.res, SESSION_COOKIE) ?? ""}`;
    const results = await Promise.all(wrongCodes(person.secret, 50).map((code) => call("POST", "/v1/auth/step-up", { from, cookie, body: { code } })));
    expect(statusCounts(results)).toEqual({ 401: 10, 429: 40 });
  });

  it("a password reset answers 202 without waiting for its work, for a known and an unknown email alike; the mail and its audit row follow", { timeout: 20_000 }, async () => {
    const person = await signUp("reset-fast");
    const from = newAddress();
    mailer.shut();
    // Nothing that reads people can proceed while this lock is held; the mail transport is stuck too.
    const blocker = await served.db.sql.reserve();
    try {
      await blocker`begin`;
      await blocker`lock table persons in access exclusive mode`;
      // A stall bound, not a speed test: while the lock is held, work that waits for it never ends.
      // The dashboard's "forgot your password?" page runs the same operation (request_password_reset).
      const forgotPage = () => fetch(`${served.baseUrl}/forgot-password`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: served.baseUrl, "X-Forwarded-For": from }, body: new URLSearchParams({ email: "nobody-on-the-page@throttle.test" }) });
      const answers = await Promise.race([
        Promise.all([call("POST", "/v1/auth/password-reset", { from, body: { email: person.address } }), call("POST", "/v1/auth/password-reset", { from, body: { email: "nobody-here@throttle.test" } }), forgotPage()]),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), 10_000)),
      ]);
      expect(answers, "the answers waited for the locked table").not.toBeNull();
      const [known, unknown, page] = answers ?? [];
      expect(known?.status).toBe(202);
      expect(unknown?.status).toBe(202);
      expect(known?.body).toEqual(unknown?.body);
      expect(page?.status).toBe(200);
    } finally {
      await blocker`commit`;
      blocker.release();
    }
    await mailer.arrived();
    // Handed to the transport, not yet through it: no audit row.
    expect(await auditCount(person.workspaceId, "person.password_reset_requested")).toBe(0);
    mailer.open();
    await served.service.afterAnswer.settled();
    expect(resetMails(person.address)).toHaveLength(1);
    expect(await auditCount(person.workspaceId, "person.password_reset_requested")).toBe(1);
  });

  it("30 resets of one email from one address: 202 each, at most 3 mails and 3 audit rows; the 31st request from that address is 429 with Retry-After", async () => {
    mailer.open();
    const person = await signUp("reset-flood");
    const from = newAddress();
    const results = await Promise.all(Array.from({ length: 30 }, () => call("POST", "/v1/auth/password-reset", { from, body: { email: person.address } })));
    expect(statusCounts(results)).toEqual({ 202: 30 });
    const refused = await call("POST", "/v1/auth/password-reset", { from, body: { email: "someone-else@throttle.test" } });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: "SVC_RATE_LIMITED", details: { bucket: "password_reset", limit: 30 } });
    expect(Number(refused.res.headers.get("retry-after"))).toBeGreaterThan(0);
    await served.service.afterAnswer.settled();
    expect(await auditCount(person.workspaceId, "person.password_reset_requested")).toBe(3);
    expect(resetMails(person.address)).toHaveLength(3);
    // Another address may still ask, but the email's mails are used up for the hour: 202, no mail, no row.
    expect((await call("POST", "/v1/auth/password-reset", { from: newAddress(), body: { email: person.address } })).status).toBe(202);
    await served.service.afterAnswer.settled();
    expect(await auditCount(person.workspaceId, "person.password_reset_requested")).toBe(3);
  });

  it("limits password-reset confirmations per address: the 31st is 429", async () => {
    const from = newAddress();
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => call("POST", "/v1/auth/password-reset/confirm", { from, body: { token: `agq_pr_${String(i).padStart(43, "A")}`, password: "a brand new long password" } })));
    expect(statusCounts(results)).toEqual({ 401: 30 });
    const refused = await call("POST", "/v1/auth/password-reset/confirm", { from, body: { token: `agq_pr_${"B".repeat(43)}`, password: "a brand new long password" } });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: "SVC_RATE_LIMITED", details: { bucket: "password_reset_confirm" } });
  });

  it("limits OAuth client registration per address: 20 of 25 parallel registrations accepted, 5 refused with 429 SVC_RATE_LIMITED and Retry-After; another address still registers", async () => {
    const from = newAddress();
    const register = (address: string) => call("POST", "/oauth/register", { from: address, body: { client_name: "burst", redirect_uris: ["http://127.0.0.1:3000/callback"] } });
    const results = await Promise.all(Array.from({ length: 25 }, () => register(from)));
    expect(statusCounts(results)).toEqual({ 201: 20, 429: 5 });
    for (const r of results.filter((x) => x.status === 429)) {
      expect(r.body.error).toMatchObject({ code: "SVC_RATE_LIMITED", details: { bucket: "oauth_register", limit: 20, window: "PT1H" } });
      expect(Number(r.res.headers.get("retry-after"))).toBeGreaterThan(0);
    }
    expect((await register(newAddress())).status).toBe(201);
  });

  it("limits sign-up per address: of 11 in parallel in an hour, 10 get 202 and one 429, a malformed 12th is 429 too; the dashboard's /sign-up counts in the same window", async () => {
    const from = newAddress();
    const results = await Promise.all(Array.from({ length: 11 }, (_, i) => call("POST", "/v1/auth/sign-up", { from, body: { email: email(`signup-${i}`), password: PASSWORD, workspace_name: `w${i}` } })));
    expect(statusCounts(results)).toEqual({ 202: 10, 429: 1 });
    expect(results.filter((r) => r.status === 429)[0]?.body.error).toMatchObject({ code: "SVC_RATE_LIMITED", details: { bucket: "sign_up", limit: 10, window: "PT1H" } });
    // Counted before the body's work: a malformed request past the limit is 429, not 400.
    expect((await call("POST", "/v1/auth/sign-up", { from, body: { email: "not an address", password: "short", workspace_name: "w" } })).body.error).toMatchObject({ code: "SVC_RATE_LIMITED", details: { bucket: "sign_up" } });
    const page = await fetch(`${served.baseUrl}/sign-up`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: served.baseUrl, "X-Forwarded-For": from }, body: new URLSearchParams({ email: email("signup-page"), password: PASSWORD, workspace_name: "page" }) });
    expect(page.status).toBe(429);
    const elsewhere = await fetch(`${served.baseUrl}/sign-up`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: served.baseUrl, "X-Forwarded-For": newAddress() }, body: new URLSearchParams({ email: email("signup-page"), password: PASSWORD, workspace_name: "page" }) });
    expect(elsewhere.status).toBe(200);
  });

  it("limits email verification per address (REST and the dashboard's /verify-email): the 31st in 15 minutes is 429, before the token is looked at", async () => {
    const from = newAddress();
    const results = await Promise.all(Array.from({ length: 20 }, () => call("POST", "/v1/auth/verify-email", { from, body: { token: `agq_ev_${"A".repeat(43)}` } })));
    expect(statusCounts(results)).toEqual({ 401: 20 });
    const pages = await Promise.all(Array.from({ length: 10 }, () => fetch(`${served.baseUrl}/verify-email`, { method: "POST", headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: served.baseUrl, "X-Forwarded-For": from }, body: new URLSearchParams({ token: `agq_ev_${"A".repeat(43)}` }) })));
    expect(pages.map((r) => r.status)).toEqual(Array.from({ length: 10 }, () => 401));
    const refused = await call("POST", "/v1/auth/verify-email", { from, body: { token: "agq_ev_x" } });
    expect(refused.status).toBe(429);
    expect(refused.body.error).toMatchObject({ code: "SVC_RATE_LIMITED", details: { bucket: "verify_email", limit: 30, window: "PT15M" } });
    expect(Number(refused.res.headers.get("retry-after"))).toBeGreaterThan(0);
    expect((await call("POST", "/v1/auth/verify-email", { from: newAddress(), body: { token: "agq_ev_x" } })).status).toBe(401);
  });

  it("a sign-up of a registered address answers 202 and draws on that email's reset-mail budget: after two resets one notice is mailed and audited, then nothing", async () => {
    mailer.open();
    const person = await signUp("registered-budget");
    for (let i = 0; i < 2; i++) expect((await call("POST", "/v1/auth/password-reset", { from: newAddress(), body: { email: person.address } })).status).toBe(202);
    for (let i = 0; i < 2; i++) expect((await call("POST", "/v1/auth/sign-up", { from: newAddress(), body: { email: person.address, password: PASSWORD, workspace_name: "again" } })).status).toBe(202);
    await served.service.afterAnswer.settled();
    // Two resets and one sign-up notice (a reset link too); the second sign-up is past the budget.
    expect(resetMails(person.address)).toHaveLength(3);
    expect(await auditCount(person.workspaceId, "person.password_reset_requested")).toBe(2);
    expect(await auditCount(person.workspaceId, "person.sign_up_attempted")).toBe(1);
  });

  it("shares the notice-intake limit between two server processes on one database, with SVC_RATE_LIMITER=off, per client address", async () => {
    const other = composeService({ sql: served.db.sql, secrets: TEST_SECRETS, publicBaseUrl: served.baseUrl, logger: createLogger("silent"), rateLimiter: "off", people: { origin: TRUSTED_LOOPBACK } });
    const otherServed = await serveOnFreePort((request: Request, env?: unknown) => other.fetch(request, env));
    try {
      const from = newAddress();
      const here = await Promise.all(Array.from({ length: 3 }, () => call("POST", "/v1/notices", { from, body: NOTICE })));
      expect(statusCounts(here)).toEqual({ 201: 3 });
      const viaOther = () => fetch(`${otherServed.url}/v1/notices`, { method: "POST", headers: { "Content-Type": "application/json", "X-Forwarded-For": from }, body: JSON.stringify(NOTICE) });
      const there = await Promise.all(Array.from({ length: 3 }, () => viaOther()));
      expect(statusCounts(there)).toEqual({ 201: 2, 429: 1 });
      const refused = await call("POST", "/v1/notices", { from, body: NOTICE });
      expect(refused.status).toBe(429);
      expect(refused.body.error).toMatchObject({ code: "SVC_RATE_LIMITED", details: { bucket: "notice_intake", limit: 5, window: "PT1M" } });
      expect(Number(refused.res.headers.get("retry-after"))).toBeGreaterThan(0);
      // The limit is the forwarded client's, not the proxy's: another client address is fresh.
      expect((await call("POST", "/v1/notices", { from: newAddress(), body: NOTICE })).status).toBe(201);
    } finally {
      await otherServed.close();
      await other.close();
    }
  });
});
