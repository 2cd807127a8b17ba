import { ManualClock, TEST_SECRETS } from "@agentq/core/testing";
import { serveOnFreePort, type ServedApp } from "@agentq/mcp/testing";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import fc from "fast-check";
import { Secret, TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeService, type ComposedService } from "./compose.ts";
import { createLogger, createSmtpMailer } from "@agentq/runtime";
import { startSmtpReceiver, type SmtpReceiver } from "@agentq/runtime/testing";
import { cookieFrom, PENDING_MFA_COOKIE, SESSION_COOKIE, signInPerson, signUpPerson } from "./testing/people.ts";

// Issue 13 (people, slice A2) over real HTTP on PostgreSQL with real TOTP codes (generated here
// from the enrolled secret with otpauth): enrol, confirm (every session without MFA ends, the
// current one included), sign in with a code, step up, recovery codes, replayed codes refused.

type Json = Record<string, any>;
const PASSWORD = "a long and quiet river";

describe("people: MFA and step-up (PostgreSQL, real HTTP, real TOTP codes)", () => {
  let db: TestSchema;
  let service: ComposedService;
  let served: ServedApp;
  let smtp: SmtpReceiver;
  // Mid-step, so a code generated "now" stays in its step while the test runs.
  const clock = new ManualClock(new Date(Math.floor(Date.now() / 30_000) * 30_000 + 15_000));
  let n = 0;
  const email = (tag: string) => `${tag}-${++n}@mfa.test`;

  const call = async (method: string, path: string, p: { cookie?: string; body?: unknown; origin?: string | null } = {}): Promise<{ status: number; body: Json; res: Response }> => {
    const headers: Record<string, string> = {};
    if (p.cookie !== undefined) headers.Cookie = p.cookie;
    if (p.origin !== null) headers.Origin = p.origin ?? served.url;
    if (p.body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(`${served.url}${path}`, { method, headers, ...(p.body === undefined ? {} : { body: JSON.stringify(p.body) }) });
    const text = await res.text();
    return { status: res.status, body: text === "" ? {} : (JSON.parse(text) as Json), res };
  };
  const codeAt = (secret: string, offsetSteps = 0) => new TOTP({ secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: 30 }).generate({ timestamp: clock.now().getTime() + offsetSteps * 30_000 });

  /** Signs up, enrols and confirms MFA; returns the secret and the recovery codes. */
  const withMfa = async (tag: string) => {
    const address = email(tag);
    const first = await signUpPerson(served.url, { email: address, password: PASSWORD, workspaceName: tag, inbox: smtp });
    const enrolled = await call("POST", "/v1/auth/mfa/totp/enroll", { cookie: first.cookie });
    expect(enrolled.status).toBe(200);
    const secret = enrolled.body.secret as string;
    const confirmed = await call("POST", "/v1/auth/mfa/totp/confirm", { cookie: first.cookie, body: { code: codeAt(secret) } });
    expect(confirmed.status).toBe(200);
    clock.advance(30_000);
    return { address, secret, recoveryCodes: confirmed.body.recovery_codes as string[], first };
  };
  const signInWithCode = async (address: string, body: Json) => {
    const pw = await call("POST", "/v1/auth/sign-in", { body: { email: address, password: PASSWORD }, origin: null });
    expect(pw.body).toEqual({ mfa_required: true });
    expect(cookieFrom(pw.res, SESSION_COOKIE)).toBeNull();
    const pending = cookieFrom(pw.res, PENDING_MFA_COOKIE);
    expect(pending).toMatch(/^agq_se_/);
    return call("POST", "/v1/auth/mfa/verify", { cookie: `${PENDING_MFA_COOKIE}=${pending as string}`, body, origin: null });
  };

  beforeAll(async () => {
    db = await createTestSchema({ max: 5 });
    smtp = await startSmtpReceiver();
    // Composed once the socket listens: its address is the public base URL, so the Origin of a page of the service is its own.
    served = await serveOnFreePort((request: Request, env?: unknown) => service.fetch(request, env));
    service = composeService({ sql: db.sql, secrets: TEST_SECRETS, publicBaseUrl: served.url, logger: createLogger("silent"), rateLimiter: "off", clock, mailer: createSmtpMailer({ url: smtp.url, from: "agentq <no-reply@mfa.test>" }) });
  });
  afterAll(async () => {
    await served?.close();
    await service?.close();
    await smtp?.close();
    await db?.drop();
  });

  it("enrols and confirms TOTP: 10 recovery codes, every session without MFA ends (the current one too, its cookie cleared); the secret is stored encrypted", async () => {
    const address = email("enrol");
    const current = await signUpPerson(served.url, { email: address, password: PASSWORD, workspaceName: "enrol", inbox: smtp });
    const other = await signInPerson(served.url, { email: address, password: PASSWORD });
    const enrolled = await call("POST", "/v1/auth/mfa/totp/enroll", { cookie: current.cookie });
    expect(enrolled.body).toEqual({ secret: expect.stringMatching(/^[A-Z2-7]{32}$/), otpauth_uri: expect.stringMatching(/^otpauth:\/\/totp\/agentq:/) });
    expect(enrolled.body.otpauth_uri).toContain(`secret=${enrolled.body.secret as string}`);
    const [row] = await db.sql<{ totp_pending_sealed: string }[]>`select totp_pending_sealed from persons where email = ${address}`;
    expect(row?.totp_pending_sealed).toMatch(/^v1\./);
    expect(row?.totp_pending_sealed).not.toContain(enrolled.body.secret);
    expect((await call("POST", "/v1/auth/mfa/totp/confirm", { cookie: current.cookie, body: { code: "000000" === codeAt(enrolled.body.secret) ? "111111" : "000000" } })).body.error.code).toBe("SVC_UNAUTHENTICATED");
    const confirmed = await call("POST", "/v1/auth/mfa/totp/confirm", { cookie: current.cookie, body: { code: codeAt(enrolled.body.secret) } });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.recovery_codes).toHaveLength(10);
    expect(new Set(confirmed.body.recovery_codes).size).toBe(10);
    expect(confirmed.res.headers.getSetCookie().some((l) => l.startsWith(`${SESSION_COOKIE}=;`) && l.includes("Max-Age=0"))).toBe(true);
    expect((await call("GET", "/v1/me", { cookie: current.cookie })).status).toBe(401);
    expect((await call("GET", "/v1/me", { cookie: other.cookie })).status).toBe(401);
    const codes = await db.sql<{ code_hash: string }[]>`select code_hash from person_recovery_codes pr join persons p on p.id = pr.person_id where p.email = ${address}`;
    expect(codes).toHaveLength(10);
    for (const c of confirmed.body.recovery_codes as string[]) expect(JSON.stringify(codes)).not.toContain(c);
  });

  it("signs in with a password and then a TOTP code (a pending-MFA cookie in between); the same code is refused a second time", async () => {
    const { address, secret } = await withMfa("signin");
    const code = codeAt(secret);
    const ok = await signInWithCode(address, { code });
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ person: { email: address, mfa_enabled: true }, mfa_required: false });
    const session = cookieFrom(ok.res, SESSION_COOKIE);
    expect((await call("GET", "/v1/me", { cookie: `${SESSION_COOKIE}=${session as string}` })).body.person.mfa_enabled).toBe(true);
    // Replayed: the same code in the same step, for another sign-in.
    const replay = await signInWithCode(address, { code });
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe("SVC_UNAUTHENTICATED");
    // A code of the previous step (within the window) is refused too: its step is not after the one used.
    expect((await signInWithCode(address, { code: codeAt(secret, -1) })).status).toBe(401);
    clock.advance(30_000);
    expect((await signInWithCode(address, { code: codeAt(secret) })).status).toBe(200);
    // A pending-MFA cookie is not a session.
    const pw = await call("POST", "/v1/auth/sign-in", { body: { email: address, password: PASSWORD }, origin: null });
    expect((await call("GET", "/v1/me", { cookie: `${SESSION_COOKIE}=${cookieFrom(pw.res, PENDING_MFA_COOKIE) as string}` })).status).toBe(401);
  });

  it("a recovery code signs in once; a spent one is refused", async () => {
    const { address, recoveryCodes } = await withMfa("recovery");
    const code = recoveryCodes[0] as string;
    expect((await signInWithCode(address, { recovery_code: code.toUpperCase() })).status).toBe(200);
    const again = await signInWithCode(address, { recovery_code: code });
    expect(again.status).toBe(401);
    expect(again.body.error.code).toBe("SVC_UNAUTHENTICATED");
    expect((await signInWithCode(address, { recovery_code: recoveryCodes[1] as string })).status).toBe(200);
  });

  it("steps up: 200 {step_up_expires_at} five minutes ahead; without MFA 401 SVC_STEP_UP_REQUIRED mfa_not_enabled; a replayed code 401", async () => {
    const plain = await signUpPerson(served.url, { email: email("plain"), password: PASSWORD, workspaceName: "plain", inbox: smtp });
    const noMfa = await call("POST", "/v1/auth/step-up", { cookie: plain.cookie, body: { code: "123456" } });
    expect(noMfa.status).toBe(401);
    expect(noMfa.body.error).toMatchObject({ code: "SVC_STEP_UP_REQUIRED", details: { reason: "mfa_not_enabled" } });
    const { address, secret } = await withMfa("stepup");
    const signedIn = await signInWithCode(address, { code: codeAt(secret) });
    const cookie = `${SESSION_COOKIE}=${cookieFrom(signedIn.res, SESSION_COOKIE) as string}`;
    clock.advance(30_000);
    const code = codeAt(secret);
    const up = await call("POST", "/v1/auth/step-up", { cookie, body: { code } });
    expect(up.status).toBe(200);
    expect(up.body).toEqual({ step_up_expires_at: new Date(clock.now().getTime() + 5 * 60_000).toISOString() });
    expect((await call("POST", "/v1/auth/step-up", { cookie, body: { code } })).body.error.code).toBe("SVC_UNAUTHENTICATED");
    expect((await call("POST", "/v1/auth/step-up", { cookie, body: { code }, origin: "https://evil.example" })).body.error.code).toBe("SVC_CSRF_REJECTED");
    expect((await call("POST", "/v1/auth/step-up", { cookie, body: { code, recovery_code: "x" } })).body.error).toMatchObject({ code: "SVC_MALFORMED_REQUEST" });
  });

  it("new recovery codes and MFA off need a fresh step-up (401 SVC_STEP_UP_REQUIRED without); the old codes stop working; off twice is refused (no step-up without MFA); the linked identities are the person's own", async () => {
    const { address, secret, recoveryCodes } = await withMfa("codes");
    const signedIn = await signInWithCode(address, { code: codeAt(secret) });
    const cookie = `${SESSION_COOKIE}=${cookieFrom(signedIn.res, SESSION_COOKIE) as string}`;
    expect((await call("GET", "/v1/me/identities", { cookie })).body).toEqual({ items: [] });
    // A sign-in with a code is a step-up of five minutes: past them, it is stale.
    clock.advance(5 * 60_000 + 1_000);
    const stale = await call("POST", "/v1/auth/mfa/recovery-codes", { cookie });
    expect(stale.status).toBe(401);
    expect(stale.body.error.code).toBe("SVC_STEP_UP_REQUIRED");
    expect((await call("DELETE", "/v1/auth/mfa", { cookie })).body.error.code).toBe("SVC_STEP_UP_REQUIRED");
    clock.advance(30_000);
    expect((await call("POST", "/v1/auth/step-up", { cookie, body: { code: codeAt(secret) } })).status).toBe(200);
    expect((await call("POST", "/v1/auth/mfa/recovery-codes", { cookie, origin: "https://evil.example" })).body.error.code).toBe("SVC_CSRF_REJECTED");
    const fresh = await call("POST", "/v1/auth/mfa/recovery-codes", { cookie });
    expect(fresh.status).toBe(200);
    expect(fresh.body.recovery_codes).toHaveLength(10);
    expect(fresh.body.recovery_codes).not.toContain(recoveryCodes[0]);
    expect((await signInWithCode(address, { recovery_code: recoveryCodes[0] as string })).status).toBe(401);
    expect(await db.sql`select 1 from audit_log where activity = 'person.recovery_codes_regenerated' and subject_id = ${signedIn.body.person.id as string}`).toHaveLength(1);
    const off = await call("DELETE", "/v1/auth/mfa", { cookie });
    expect(off.status).toBe(204);
    expect((await call("GET", "/v1/me", { cookie })).body.person.mfa_enabled).toBe(false);
    // With MFA off there is no step-up to have: turning it off again is refused as such.
    const again = await call("DELETE", "/v1/auth/mfa", { cookie });
    expect(again.status).toBe(401);
    expect(again.body.error).toMatchObject({ code: "SVC_STEP_UP_REQUIRED", details: { reason: "mfa_not_enabled" } });
    // A credential is not a person's session.
    expect((await call("GET", "/v1/me/identities", {})).status).toBe(401);
  });

  it("never answers 500 to random bodies on the MFA routes, and refuses random codes", async () => {
    const { address, secret } = await withMfa("fuzz");
    const signedIn = await signInWithCode(address, { code: codeAt(secret) });
    const cookie = `${SESSION_COOKIE}=${cookieFrom(signedIn.res, SESSION_COOKIE) as string}`;
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("/v1/auth/mfa/totp/enroll", "/v1/auth/mfa/totp/confirm", "/v1/auth/mfa/verify", "/v1/auth/step-up"), fc.oneof(fc.jsonValue(), fc.record({ code: fc.oneof(fc.stringMatching(/^[0-9]{6}$/), fc.string(), fc.integer()), recovery_code: fc.string() }, { requiredKeys: [] })), async (path, body) => {
        const r = await call("POST", path, { cookie, body });
        expect(r.status).toBeLessThan(500);
        if (r.status >= 400) expect(r.body.error.code).toMatch(/^SVC_[A-Z_]+$/);
      }),
      { numRuns: 30 },
    );
  });
});
