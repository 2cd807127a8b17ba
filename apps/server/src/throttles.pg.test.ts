import { Secret, TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { serveComposed, type ServedService } from "./testing/serve-composed.ts";
import { cookieFrom, PENDING_MFA_COOKIE, SESSION_COOKIE } from "./testing/people.ts";

// Issue 25 (safe under hostile input), item 3, over real HTTP on PostgreSQL with real
// concurrency: throttles decided before the work they guard (sign-in, MFA, step-up). The socket (127.0.0.1) is a
// trusted proxy here, so each test speaks from its own client address (X-Forwarded-For).

type Json = Record<string, any>;
const PASSWORD = "a long and quiet river";

describe("throttles and anonymous limits (PostgreSQL, real HTTP, real concurrency)", () => {
  let served: ServedService;
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
  const signUp = async (tag: string): Promise<{ address: string; workspaceId: string; personId: string }> => {
    const address = email(tag);
    const res = await call("POST", "/v1/auth/sign-up", { from: newAddress(), body: { email: address, password: PASSWORD, workspace_name: tag } });
    expect(res.status).toBeLessThan(300);
    const [row] = await served.db.sql<{ workspace_id: string; id: string }[]>`select workspace_id, id from persons where email = ${address}`;
    if (row === undefined) throw new Error(`no person ${address}`);
    return { address, workspaceId: row.workspace_id, personId: row.id };
  };
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
    served = await serveComposed({ origin: { trustedProxies: ["127.0.0.1/32", "::1/128"], countryHeader: null } });
  });
  afterAll(async () => {
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
    expect(statusCounts(results)).toEqual({ 401: 10, 429: 190 });
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
});
