import { DEFAULT_PEOPLE_SETTINGS, OPERATIONAL_SCOPES } from "@agentq/core";
import { ManualClock, signUpTokenIn, TEST_SECRETS } from "@agentq/core/testing";
import { serveOnFreePort, type ServedApp } from "@agentq/mcp/testing";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeService, type ComposedService } from "./compose.ts";
import { createLogger, createSmtpMailer } from "@agentq/runtime";
import { startSmtpReceiver, type SmtpReceiver } from "@agentq/runtime/testing";
import { cookieFrom, freshClientAddress, nextMailTo, SESSION_COOKIE, seedPerson, signInPerson, signUpPerson, TRUSTED_LOOPBACK } from "./testing/people.ts";

// Issue 13 (people, slice A1) over real HTTP on PostgreSQL: sign-up, sign-in, GET /v1/me, the
// administrative routes with the session cookie, the origin check, a viewer's reads, other
// workspaces, throttling, geofencing, closed sign-up, session timeouts, and bad bodies and
// cookies never answered 500. Issue 25 (item 5): sign-up proves the email with a mailed link
// (read from a real SMTP receiver) before anything exists.

type Json = Record<string, any>;
const PASSWORD = "a long and quiet river";

describe("people: sign-up, sign-in and sessions (PostgreSQL, real HTTP)", () => {
  let db: TestSchema;
  let service: ComposedService;
  let served: ServedApp;
  let smtp: SmtpReceiver;
  const clock = new ManualClock(new Date());
  let n = 0;
  const email = (tag: string) => `${tag}-${++n}@people.test`;

  // Every sign-up and verification comes from a client address of its own (X-Forwarded-For from the
  // trusted loopback proxy), so the file's many sign-ups stay under the per-address limits.
  const ownAddress = (path: string) => (path === "/v1/auth/sign-up" || path === "/v1/auth/verify-email" ? freshClientAddress() : {});
  const call = async (method: string, path: string, p: { cookie?: string; origin?: string | null; body?: unknown; headers?: Record<string, string> } = {}): Promise<{ status: number; body: Json; res: Response }> => {
    const headers: Record<string, string> = { ...ownAddress(path), ...p.headers };
    if (p.cookie !== undefined) headers.Cookie = p.cookie;
    if (p.origin !== null && p.cookie !== undefined) headers.Origin = p.origin ?? served.url;
    if (p.body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(`${served.url}${path}`, { method, headers, ...(p.body === undefined ? {} : { body: JSON.stringify(p.body) }) });
    const text = await res.text();
    return { status: res.status, body: text === "" ? {} : (JSON.parse(text) as Json), res };
  };
  const signUp = (tag: string) => signUpPerson(served.url, { email: email(tag), password: PASSWORD, workspaceName: `${tag} workspace`, inbox: smtp });

  beforeAll(async () => {
    db = await createTestSchema({ max: 5 });
    smtp = await startSmtpReceiver();
    // Composed once the socket listens: its address is the public base URL, so the Origin of a page of the service is its own.
    served = await serveOnFreePort((request: Request, env?: unknown) => service.fetch(request, env));
    service = composeService({ sql: db.sql, secrets: TEST_SECRETS, publicBaseUrl: served.url, logger: createLogger("silent"), rateLimiter: "off", clock, mailer: createSmtpMailer({ url: smtp.url, from: "agentq <no-reply@people.test>" }), people: { origin: TRUSTED_LOOPBACK } });
  });
  afterAll(async () => {
    await served?.close();
    await service?.close();
    await smtp?.close();
    await db?.drop();
  });

  it("signs up through the mailed link: 202 and nothing exists; the link's token gives 201 {person, workspace} on the free plan and an HttpOnly SameSite=Lax __Host- cookie; GET /v1/me answers the person", async () => {
    const asked = await call("POST", "/v1/auth/sign-up", { body: { email: "Founder@People.TEST", password: PASSWORD, workspace_name: "Founders", display_name: "Ada" } });
    expect(asked.status).toBe(202);
    expect(asked.body).toEqual({ verification: "sent" });
    expect(asked.res.headers.getSetCookie()).toEqual([]);
    expect(await db.sql`select 1 from persons where email = 'founder@people.test'`).toHaveLength(0);
    expect(await db.sql`select 1 from workspaces where name = 'Founders'`).toHaveLength(0);
    expect((await call("POST", "/v1/auth/sign-in", { body: { email: "founder@people.test", password: PASSWORD } })).status).toBe(401);
    // The pending sign-up and its mail are the request's work after the answer (issue 25).
    const mail = await nextMailTo(smtp, "founder@people.test", 0);
    // The password is stored only as its argon2id hash, the token only as its keyed hash.
    const [pending] = await db.sql<{ password_hash: string; token_hash: string }[]>`select password_hash, token_hash from pending_sign_ups where email = 'founder@people.test'`;
    expect(pending?.password_hash).toMatch(/^\$argon2id\$/);
    const link = new RegExp(`${served.url.replaceAll(".", "\\.")}/verify-email#token=(agq_ev_[A-Za-z0-9_-]{43})`).exec(mail.text)?.[1] ?? "";
    expect(link).not.toBe("");
    expect(pending?.token_hash).not.toContain(link.slice(7));
    expect(mail.text).not.toContain("Founders");

    const res = await fetch(`${served.url}/v1/auth/verify-email`, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ token: link }) });
    expect(res.status).toBe(201);
    const body = (await res.json()) as Json;
    expect(body).toEqual({
      person: { id: expect.any(String), email: "founder@people.test", display_name: "Ada", role: "owner", mfa_enabled: false, created_at: expect.any(String) },
      workspace: { id: expect.any(String), name: "Founders", state: "active", plan: "free" },
    });
    const line = res.headers.getSetCookie().find((l) => l.startsWith(`${SESSION_COOKIE}=`)) ?? "";
    expect(line).toMatch(/; Path=\/; HttpOnly; SameSite=Lax; Max-Age=43200; Secure$/);
    const token = cookieFrom(res, SESSION_COOKIE);
    expect(token).toMatch(/^agq_se_/);
    const me = await call("GET", "/v1/me", { cookie: `${SESSION_COOKIE}=${token}` });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ kind: "person", person: body.person, workspace: body.workspace });
    // Only a keyed hash of the session value is stored.
    const rows = await db.sql<{ token_hash: string }[]>`select token_hash from person_sessions where person_id = ${body.person.id}`;
    expect(rows).toHaveLength(1);
    expect(rows[0]?.token_hash).not.toContain(token);
    expect(rows[0]?.token_hash).toMatch(/^[0-9a-f]{64}$/);
    const audit = await db.sql<{ activity: string }[]>`select activity from audit_log where workspace_id = ${body.workspace.id} order by id`;
    expect(audit.map((r) => r.activity)).toEqual(["workspace.created", "person.signed_up", "person.signed_in"]);
    // The link works once: a replay is refused and creates nothing.
    const replay = await call("POST", "/v1/auth/verify-email", { body: { token: link } });
    expect(replay.status).toBe(401);
    expect(replay.body.error).toMatchObject({ code: "SVC_UNAUTHENTICATED", details: { field: "token" } });
    expect(await db.sql`select 1 from pending_sign_ups where email = 'founder@people.test'`).toHaveLength(0);
  });

  it("refuses a verification token that is malformed, unknown or past its 24 hours with 401 SVC_UNAUTHENTICATED, creating nothing", async () => {
    const address = email("late");
    expect((await call("POST", "/v1/auth/sign-up", { body: { email: address, password: PASSWORD, workspace_name: "late" } })).status).toBe(202);
    const token = signUpTokenIn((await nextMailTo(smtp, address, 0)).text) ?? "";
    for (const bad of ["agq_ev_", `agq_ev_${"x".repeat(43)}`, token.replace("agq_ev_", "agq_pr_")]) {
      const r = await call("POST", "/v1/auth/verify-email", { body: { token: bad } });
      expect(r.status, bad).toBe(401);
      expect(r.body.error.code).toBe("SVC_UNAUTHENTICATED");
    }
    expect((await call("POST", "/v1/auth/verify-email", { body: {} })).body.error).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { field: "token" } });
    clock.advance(24 * 3_600_000);
    expect((await call("POST", "/v1/auth/verify-email", { body: { token } })).status).toBe(401);
    expect(await db.sql`select 1 from persons where email = ${address}`).toHaveLength(0);
  });

  it("answers a sign-up for a registered address like any other (202), mails that address that it has an account, and creates nothing", async () => {
    const taken = await signUp("taken");
    const address = taken.body.person.email as string;
    const seen = smtp.to(address).length;
    const again = await call("POST", "/v1/auth/sign-up", { body: { email: address.toUpperCase(), password: "a different long password", workspace_name: "again" } });
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ verification: "sent" });
    const mail = await nextMailTo(smtp, address, seen);
    expect(mail.text).not.toMatch(/agq_ev_/);
    expect(mail.text).toMatch(/\/reset-password#token=agq_pr_/);
    expect(await db.sql`select 1 from pending_sign_ups where email = ${address}`).toHaveLength(0);
    expect(await db.sql`select 1 from workspaces where name = 'again'`).toHaveLength(0);
    // The audit row follows the mail's hand-over, in the work after the answer.
    await service.afterAnswer.settled();
    const attempts = await db.sql<{ details: Json }[]>`select details from audit_log where workspace_id = ${taken.body.workspace.id} and activity = 'person.sign_up_attempted'`;
    expect(attempts.map((r) => r.details)).toEqual([expect.objectContaining({ mailed: true })]);
  });

  it("lets a squatter's pending sign-up block nobody: the owner's own sign-up of the address wins, and the squatter's link then gets 409", async () => {
    const address = email("colleague");
    expect((await call("POST", "/v1/auth/sign-up", { body: { email: address, password: "the squatter's long password", workspace_name: "squat" } })).status).toBe(202);
    const squatterToken = signUpTokenIn((await nextMailTo(smtp, address, 0)).text) ?? "";
    const owner = await signUpPerson(served.url, { email: address, password: PASSWORD, workspaceName: "mine", inbox: smtp });
    expect(owner.body.workspace.name).toBe("mine");
    const late = await call("POST", "/v1/auth/verify-email", { body: { token: squatterToken } });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: "SVC_RESOURCE_CONFLICT", details: { reason: "email_registered" } });
    expect(await db.sql`select 1 from workspaces where name = 'squat'`).toHaveLength(0);
  });

  it("lets exactly one of concurrent verifications of one link create the workspace", async () => {
    const address = email("race");
    expect((await call("POST", "/v1/auth/sign-up", { body: { email: address, password: PASSWORD, workspace_name: "race" } })).status).toBe(202);
    const token = signUpTokenIn((await nextMailTo(smtp, address, 0)).text) ?? "";
    const results = await Promise.all(Array.from({ length: 6 }, () => call("POST", "/v1/auth/verify-email", { body: { token } })));
    expect(results.map((r) => r.status).sort()).toEqual([201, 401, 401, 401, 401, 401]);
    expect(await db.sql`select 1 from workspaces where name = 'race'`).toHaveLength(1);
  });

  it("signs in and out: wrong email and wrong password give the same 401; sign-out ends the session; each is audited in the workspace", async () => {
    const owner = await signUp("inout");
    const address = owner.body.person.email as string;
    const wrongPassword = await call("POST", "/v1/auth/sign-in", { body: { email: address, password: "not the password at all" } });
    const wrongEmail = await call("POST", "/v1/auth/sign-in", { body: { email: "nobody@people.test", password: PASSWORD } });
    expect(wrongPassword.status).toBe(401);
    expect(wrongPassword.body.error.code).toBe("SVC_UNAUTHENTICATED");
    expect({ ...wrongEmail.body, request_id: null }).toEqual({ ...wrongPassword.body, request_id: null });
    const again = await signInPerson(served.url, { email: address, password: PASSWORD });
    expect(again.body).toMatchObject({ person: { id: owner.body.person.id }, mfa_required: false });
    const out = await call("POST", "/v1/auth/sign-out", { cookie: again.cookie });
    expect(out.status).toBe(204);
    expect(out.res.headers.getSetCookie().some((l) => l.startsWith(`${SESSION_COOKIE}=;`) && l.includes("Max-Age=0"))).toBe(true);
    expect((await call("GET", "/v1/me", { cookie: again.cookie })).body.error.code).toBe("SVC_UNAUTHENTICATED");
    expect((await call("GET", "/v1/me", { cookie: owner.cookie })).status).toBe(200);
    const audit = await call("GET", "/v1/audit-log?limit=100", { cookie: owner.cookie });
    expect(audit.status).toBe(200);
    const activities = (audit.body.items as Json[]).map((r) => r.activity);
    expect(activities).toEqual(expect.arrayContaining(["workspace.created", "person.signed_up", "person.signed_in", "person.sign_in_failed", "person.signed_out"]));
    const failed = (audit.body.items as Json[]).find((r) => r.activity === "person.sign_in_failed");
    expect(failed).toMatchObject({ subject_type: "person", subject_id: owner.body.person.id, actor_ai_account_id: null, details: { reason: "wrong_password" } });
    expect(JSON.stringify(audit.body)).not.toContain(PASSWORD);
  });

  it("a session acts on the administrative routes; writes from another origin are refused 403 SVC_CSRF_REJECTED; a session value as a bearer token is 401", async () => {
    const owner = await signUp("admin");
    const created = await call("POST", "/v1/ai-accounts", { cookie: owner.cookie, body: { friendly_name: "worker" } });
    expect(created.status).toBe(201);
    const issued = await call("POST", "/v1/credentials", { cookie: owner.cookie, body: { ai_account_id: created.body.id, tier: "operational", scopes: ["send"], name: "box" } });
    expect(issued.status).toBe(201);
    expect((await call("GET", "/v1/credentials", { cookie: owner.cookie })).body.items).toHaveLength(1);
    expect((await call("POST", "/v1/ai-accounts", { cookie: owner.cookie, origin: "https://evil.example", body: { friendly_name: "evil" } })).body.error.code).toBe("SVC_CSRF_REJECTED");
    expect((await call("POST", "/v1/ai-accounts", { cookie: owner.cookie, origin: null, body: { friendly_name: "no-origin" } })).body.error.code).toBe("SVC_CSRF_REJECTED");
    const fetchMetadata = await call("POST", "/v1/ai-accounts", { cookie: owner.cookie, origin: null, headers: { "Sec-Fetch-Site": "same-origin" }, body: { friendly_name: "same-site" } });
    expect(fetchMetadata.status).toBe(201);
    expect((await call("POST", "/v1/ai-accounts", { cookie: owner.cookie, origin: null, headers: { "Sec-Fetch-Site": "cross-site" }, body: { friendly_name: "cross" } })).status).toBe(403);
    // Reads need no origin; the refused writes created nothing.
    const names = ((await call("GET", "/v1/ai-accounts", { cookie: owner.cookie, origin: null })).body.items as Json[]).map((a) => a.friendly_name);
    expect(names.sort()).toEqual(["same-site", "worker"]);
    // A bearer credential is not subject to the origin check.
    const bearer = await fetch(`${served.url}/v1/messages/send`, { method: "POST", headers: { Authorization: `Bearer ${issued.body.token as string}`, "Content-Type": "application/json", "Idempotency-Key": "send-1", Origin: "https://evil.example" }, body: JSON.stringify({ envelope: { recipient: { friendly_name: "worker" }, template: "note" }, payload: { text: "hi" } }) });
    expect(bearer.status, await bearer.clone().text()).toBe(201);
    const asBearer = await fetch(`${served.url}/v1/me`, { headers: { Authorization: `Bearer ${owner.token}` } });
    expect(asBearer.status).toBe(401);
    expect(((await asBearer.json()) as Json).error.code).toBe("SVC_UNAUTHENTICATED");
    // An owner's session holds no operational scope: sending is for AI accounts.
    const send = await call("POST", "/v1/messages/send", { cookie: owner.cookie, body: { envelope: { recipient: { friendly_name: "worker" }, template: "note" }, payload: { text: "hi" } } });
    expect(send.body.error.code).toBe("SVC_SCOPE_INSUFFICIENT");
    // With a session, GET /v1/messages covers the whole workspace.
    const list = await call("GET", "/v1/messages", { cookie: owner.cookie });
    expect(list.status).toBe(200);
    expect(list.body.items).toHaveLength(1);
    const one = await call("GET", `/v1/messages/${list.body.items[0].envelope.message_id as string}`, { cookie: owner.cookie });
    expect(one.status).toBe(200);
    // The audit log names the person behind each administrative change.
    const audit = await call("GET", "/v1/audit-log?activity=ai_account.created", { cookie: owner.cookie });
    expect(audit.body.items[0]).toMatchObject({ actor_ai_account_id: null, actor_credential_id: null, details: { actor_person_id: owner.body.person.id } });
  });

  it("a viewer reads the workspace but every write is 403 SVC_TIER_INSUFFICIENT", async () => {
    const owner = await signUp("viewed");
    await call("POST", "/v1/ai-accounts", { cookie: owner.cookie, body: { friendly_name: "seen" } });
    const viewerEmail = email("viewer");
    await seedPerson(service.deps, { workspaceId: owner.body.workspace.id, email: viewerEmail, role: "viewer", password: PASSWORD });
    const viewer = await signInPerson(served.url, { email: viewerEmail, password: PASSWORD });
    expect((await call("GET", "/v1/me", { cookie: viewer.cookie })).body.person).toMatchObject({ role: "viewer" });
    expect((await call("GET", "/v1/ai-accounts", { cookie: viewer.cookie })).body.items).toHaveLength(1);
    expect((await call("GET", "/v1/audit-log", { cookie: viewer.cookie })).status).toBe(200);
    expect((await call("GET", "/v1/webhooks", { cookie: viewer.cookie })).status).toBe(200);
    const write = await call("POST", "/v1/ai-accounts", { cookie: viewer.cookie, body: { friendly_name: "nope" } });
    expect(write.status).toBe(403);
    expect(write.body.error.code).toBe("SVC_TIER_INSUFFICIENT");
    expect((await call("POST", "/v1/policies", { cookie: viewer.cookie, body: { name: "p", body: "b" } })).body.error.code).toBe("SVC_TIER_INSUFFICIENT");
  });

  it("a session of workspace B reads and changes nothing of workspace A", async () => {
    const a = await signUp("tenant-a");
    const b = await signUp("tenant-b");
    const account = (await call("POST", "/v1/ai-accounts", { cookie: a.cookie, body: { friendly_name: "secret-agent" } })).body;
    const cred = (await call("POST", "/v1/credentials", { cookie: a.cookie, body: { ai_account_id: account.id, tier: "operational", scopes: [...OPERATIONAL_SCOPES], name: "a-box" } })).body;
    await fetch(`${served.url}/v1/messages/send`, { method: "POST", headers: { Authorization: `Bearer ${cred.token as string}`, "Content-Type": "application/json", "Idempotency-Key": "send-a" }, body: JSON.stringify({ envelope: { recipient: { friendly_name: "secret-agent" }, template: "note" }, payload: { text: "hi" } }) });
    const messageId = ((await call("GET", "/v1/messages", { cookie: a.cookie })).body.items[0]?.envelope.message_id ?? "") as string;
    expect(messageId).not.toBe("");
    for (const path of [`/v1/ai-accounts/${account.id as string}`, `/v1/credentials/${cred.credential.id as string}`, `/v1/messages/${messageId}`]) {
      const r = await call("GET", path, { cookie: b.cookie });
      expect(r.status, path).toBe(404);
      expect(r.body.error.code).toBe("SVC_RESOURCE_NOT_FOUND");
    }
    expect((await call("GET", "/v1/messages", { cookie: b.cookie })).body.items).toEqual([]);
    expect((await call("GET", "/v1/ai-accounts", { cookie: b.cookie })).body.items).toEqual([]);
    for (const path of [`/v1/ai-accounts/${account.id as string}/freeze`, `/v1/credentials/${cred.credential.id as string}/revoke`]) {
      const r = await call("POST", path, { cookie: b.cookie, headers: { "Idempotency-Key": `k-${path}` } });
      expect(r.status, path).toBe(404);
    }
    expect((await call("GET", `/v1/ai-accounts/${account.id as string}`, { cookie: a.cookie })).body.state).toBe("active");
    expect((await call("GET", `/v1/credentials/${cred.credential.id as string}`, { cookie: a.cookie })).body.state).toBe("active");
    const auditB = (await call("GET", "/v1/audit-log?limit=100", { cookie: b.cookie })).body.items as Json[];
    expect(JSON.stringify(auditB)).not.toContain(account.id as string);
  });

  it("refuses bad passwords (400 with details.field and reason) and a missing field, before any mail", async () => {
    const cases: [string, string][] = [["too short", "too_short"], ["x".repeat(257), "too_long"], ["qwerty123456", "common"], ["my-name-is-carol-really", "contains_email"]];
    for (const [password, reason] of cases) {
      const r = await call("POST", "/v1/auth/sign-up", { body: { email: "carol@people.test", password, workspace_name: "w" } });
      expect(r.status, reason).toBe(400);
      expect(r.body.error).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { field: "password", reason } });
    }
    expect(smtp.to("carol@people.test")).toHaveLength(0);
    const missing = await call("POST", "/v1/auth/sign-up", { body: { email: "x@people.test", password: PASSWORD } });
    expect(missing.body.error).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { field: "workspace_name" } });
  });

  it("throttles failed sign-ins: the 11th try of one email in 15 minutes is 429 with Retry-After, even with the right password", async () => {
    const owner = await signUp("throttled");
    const address = owner.body.person.email as string;
    for (let i = 0; i < 10; i++) expect((await call("POST", "/v1/auth/sign-in", { body: { email: address, password: `wrong password ${i}` } })).status).toBe(401);
    const limited = await call("POST", "/v1/auth/sign-in", { body: { email: address, password: PASSWORD } });
    expect(limited.status).toBe(429);
    expect(limited.body.error).toMatchObject({ code: "SVC_RATE_LIMITED", details: { bucket: "sign_in_email", limit: 10 } });
    expect(Number(limited.res.headers.get("retry-after"))).toBeGreaterThan(0);
    clock.advance(16 * 60_000);
    expect((await call("POST", "/v1/auth/sign-in", { body: { email: address, password: PASSWORD } })).status).toBe(200);
  });

  it("ends a session idle for 30 minutes, and any session 12 hours after sign-in", async () => {
    const owner = await signUp("idle");
    clock.advance(29 * 60_000);
    expect((await call("GET", "/v1/me", { cookie: owner.cookie })).status).toBe(200);
    clock.advance(29 * 60_000);
    expect((await call("GET", "/v1/me", { cookie: owner.cookie })).status).toBe(200);
    clock.advance(31 * 60_000);
    expect((await call("GET", "/v1/me", { cookie: owner.cookie })).body.error.code).toBe("SVC_UNAUTHENTICATED");
    const busy = await signUp("busy");
    for (let i = 0; i < 25; i++) {
      clock.advance(29 * 60_000);
      if ((await call("GET", "/v1/me", { cookie: busy.cookie })).status !== 200) break;
    }
    expect((await call("GET", "/v1/me", { cookie: busy.cookie })).status).toBe(401);
  });

  it("never answers 500 to random bodies on the auth routes or random cookies on /v1/me", async () => {
    const bodies = fc.oneof(
      fc.jsonValue(),
      fc.record({ token: fc.oneof(fc.string({ maxLength: 250 }), fc.integer()), email: fc.oneof(fc.string(), fc.emailAddress(), fc.integer()), password: fc.oneof(fc.string({ maxLength: 300 }), fc.constant(null)), workspace_name: fc.oneof(fc.string({ maxLength: 250 }), fc.boolean()), display_name: fc.option(fc.string({ maxLength: 250 })) }, { requiredKeys: [] }),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("/v1/auth/sign-up", "/v1/auth/verify-email", "/v1/auth/sign-in", "/v1/auth/sign-out"), bodies, async (path, body) => {
        const r = await call("POST", path, { body });
        expect(r.status).toBeLessThan(500);
        if (r.status >= 400) expect(r.body.error.code).toMatch(/^SVC_[A-Z_]+$/);
      }),
      { numRuns: 40 },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ maxLength: 200 }), fc.string({ maxLength: 43 }).map((s) => `agq_se_${s}`), fc.stringMatching(/^[A-Za-z0-9_-]{43}$/).map((s) => `agq_se_${s}`)), async (value) => {
        const res = await fetch(`${served.url}/v1/me`, { headers: { Cookie: `${SESSION_COOKIE}=${encodeURIComponent(value)}` } });
        expect(res.status).toBe(401);
        expect(((await res.json()) as Json).error.code).toBe("SVC_UNAUTHENTICATED");
      }),
      { numRuns: 40 },
    );
  });
});

describe("people: sign-up settings (geofence, closed sign-up)", () => {
  let db: TestSchema;
  let smtp: SmtpReceiver;
  const services: { service: ComposedService; served: ServedApp }[] = [];
  const start = async (settings: Partial<typeof DEFAULT_PEOPLE_SETTINGS>, origin?: { trustedProxies: string[]; countryHeader: string | null }) => {
    const service = composeService({ sql: db.sql, secrets: TEST_SECRETS, publicBaseUrl: "http://127.0.0.1:8080", logger: createLogger("silent"), rateLimiter: "off", mailer: createSmtpMailer({ url: smtp.url, from: "agentq <no-reply@geo.test>" }), people: { settings: { ...DEFAULT_PEOPLE_SETTINGS, ...settings }, ...(origin === undefined ? {} : { origin }) } });
    const served = await serveOnFreePort((request: Request, env?: unknown) => service.fetch(request, env));
    services.push({ service, served });
    return served.url;
  };
  const signUpAt = (url: string, email: string, headers: Record<string, string> = {}) =>
    fetch(`${url}/v1/auth/sign-up`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify({ email, password: PASSWORD, workspace_name: "geo" }) });

  beforeAll(async () => {
    db = await createTestSchema({ max: 5 });
    smtp = await startSmtpReceiver();
  });
  afterAll(async () => {
    for (const s of services) {
      await s.served.close();
      await s.service.close();
    }
    await smtp?.close();
    await db?.drop();
  });
  const verifyAt = (url: string, token: string, headers: Record<string, string> = {}) =>
    fetch(`${url}/v1/auth/verify-email`, { method: "POST", headers: { "Content-Type": "application/json", ...headers }, body: JSON.stringify({ token }) });

  it("refuses sign-up, and the verification of its link, from a blocked country (trusted proxy header) with 403 SVC_GEOFENCE_BLOCKED and creates nothing", async () => {
    const url = await start({ blockedCountries: ["KP"] }, { trustedProxies: ["127.0.0.1/32", "::1/128"], countryHeader: "CF-IPCountry" });
    const blocked = await signUpAt(url, "blocked@geo.test", { "CF-IPCountry": "kp" });
    expect(blocked.status).toBe(403);
    expect(((await blocked.json()) as Json).error.code).toBe("SVC_GEOFENCE_BLOCKED");
    expect(await db.sql`select 1 from pending_sign_ups where email = 'blocked@geo.test'`).toHaveLength(0);
    expect((await signUpAt(url, "blocked@geo.test", { "CF-IPCountry": "FR" })).status).toBe(202);
    const token = signUpTokenIn((await nextMailTo(smtp, "blocked@geo.test", 0)).text) ?? "";
    const fromKp = await verifyAt(url, token, { "CF-IPCountry": "KP" });
    expect(fromKp.status).toBe(403);
    expect(((await fromKp.json()) as Json).error.code).toBe("SVC_GEOFENCE_BLOCKED");
    expect(await db.sql`select 1 from persons where email = 'blocked@geo.test'`).toHaveLength(0);
    expect((await verifyAt(url, token, { "CF-IPCountry": "FR" })).status).toBe(201);
  });

  it("ignores the country header from a socket that is not a trusted proxy", async () => {
    const url = await start({ blockedCountries: ["KP"] }, { trustedProxies: ["10.0.0.0/8"], countryHeader: "CF-IPCountry" });
    expect((await signUpAt(url, "spoofed@geo.test", { "CF-IPCountry": "KP" })).status).toBe(202);
  });

  it("counts failed sign-ins per client address: the first X-Forwarded-For hop behind a trusted proxy, else the socket", async () => {
    const url = await start({}, { trustedProxies: ["127.0.0.1/32", "::1/128"], countryHeader: null });
    const signIn = (email: string, forwardedFor: string) =>
      fetch(`${url}/v1/auth/sign-in`, { method: "POST", headers: { "Content-Type": "application/json", "X-Forwarded-For": forwardedFor }, body: JSON.stringify({ email, password: "not the password" }) });
    for (let i = 0; i < 30; i++) expect((await signIn(`nobody-${i}@xff.test`, "203.0.113.9, 10.0.0.1")).status).toBe(401);
    const limited = await signIn("someone@xff.test", "203.0.113.9");
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as Json).error.details).toMatchObject({ bucket: "sign_in_address", limit: 30 });
    expect((await signIn("someone@xff.test", "198.51.100.20")).status).toBe(401);
    // Without a trusted proxy the header is ignored: every request counts for the socket's address.
    const direct = await start({}, { trustedProxies: [], countryHeader: null });
    const fromDirect = (email: string, forwardedFor: string) =>
      fetch(`${direct}/v1/auth/sign-in`, { method: "POST", headers: { "Content-Type": "application/json", "X-Forwarded-For": forwardedFor }, body: JSON.stringify({ email, password: "not the password" }) });
    expect((await fromDirect("someone@xff.test", "203.0.113.9")).status).not.toBe(429);
  });

  it("SVC_SIGNUP=closed refuses sign-up, and the verification of a link mailed while it was open, with 403 SVC_TIER_INSUFFICIENT", async () => {
    const open = await start({});
    expect((await signUpAt(open, "closed@geo.test")).status).toBe(202);
    const token = signUpTokenIn((await nextMailTo(smtp, "closed@geo.test", 0)).text) ?? "";
    const url = await start({ signup: "closed" });
    const r = await signUpAt(url, "closed@geo.test");
    expect(r.status).toBe(403);
    expect(((await r.json()) as Json).error).toMatchObject({ code: "SVC_TIER_INSUFFICIENT", details: { reason: "signup_closed" } });
    const late = await verifyAt(url, token);
    expect(late.status).toBe(403);
    expect(((await late.json()) as Json).error).toMatchObject({ code: "SVC_TIER_INSUFFICIENT", details: { reason: "signup_closed" } });
  });
});
