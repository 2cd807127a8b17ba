import { ManualClock, signUpTokenIn, TEST_SECRETS } from "@agentq/core/testing";
import { serveOnFreePort, type ServedApp } from "@agentq/mcp/testing";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeService, type ComposedService } from "./compose.ts";
import { createLogger, createSmtpMailer } from "@agentq/runtime";
import { startSmtpReceiver, type SmtpReceiver, type TestMail } from "@agentq/runtime/testing";
import { nextMailTo, signInPerson, signUpPerson, TRUSTED_LOOPBACK, type SignedInPerson } from "./testing/people.ts";

// Issue 13 (people, slice B2) over real HTTP on PostgreSQL, with mail through a real SMTP
// receiver on 127.0.0.1: a forgotten password reset from the mailed token, and the people of a
// workspace (invite with a mailed set-password link, list, change a role, remove), the last-owner
// rule, who may do what, other workspaces, and bad input never answered 500.

type Json = Record<string, any>;
const PASSWORD = "a long and quiet river";
const NEW_PASSWORD = "another slow green valley";

describe("people: password reset and the people of a workspace (PostgreSQL, real HTTP, real SMTP)", () => {
  let db: TestSchema;
  let service: ComposedService;
  let served: ServedApp;
  let smtp: SmtpReceiver & { failNext: number };
  const clock = new ManualClock(new Date());
  let n = 0;
  const email = (tag: string) => `${tag}-${++n}@admin.test`;

  const call = async (method: string, path: string, p: { cookie?: string; origin?: string | null; body?: unknown; headers?: Record<string, string> } = {}): Promise<{ status: number; body: Json; res: Response }> => {
    const headers: Record<string, string> = { ...p.headers };
    if (p.cookie !== undefined) headers.Cookie = p.cookie;
    if (p.origin !== null && p.cookie !== undefined) headers.Origin = p.origin ?? served.url;
    if (p.body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(`${served.url}${path}`, { method, headers, ...(p.body === undefined ? {} : { body: JSON.stringify(p.body) }) });
    const text = await res.text();
    return { status: res.status, body: text === "" ? {} : (JSON.parse(text) as Json), res };
  };
  const signUp = (tag: string) => signUpPerson(served.url, { email: email(tag), password: PASSWORD, workspaceName: `${tag} workspace`, inbox: smtp });
  /** The mails to `to` carrying a reset or invitation link (not the sign-up's verification mail). */
  const tokenMails = (to: string) => smtp.to(to).filter((m) => /#token=agq_(?:pr|iv)_/.test(m.text));
  /** The token (agq_pr_ or agq_iv_) of the newest such mail to `to`, waiting for the `count`-th to arrive. */
  const mailedToken = async (to: string, count = 1): Promise<{ token: string; mail: TestMail }> => {
    const deadline = Date.now() + 5_000;
    while (tokenMails(to).length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const mail = tokenMails(to).at(-1);
    if (mail === undefined || tokenMails(to).length < count) throw new Error(`no mail #${count} to ${to}`);
    const token = /#token=(agq_(?:pr|iv)_[A-Za-z0-9_-]{43})/.exec(mail.text)?.[1];
    if (token === undefined) throw new Error(`no token in the mail to ${to}`);
    return { token, mail };
  };
  const auditActivities = async (workspaceId: string): Promise<string[]> => (await db.sql<{ activity: string }[]>`select activity from audit_log where workspace_id = ${workspaceId} order by id`).map((r) => r.activity);
  /** Invites `address` with `role` as `by`, accepts the invitation with PASSWORD and signs in. */
  const invited = async (by: SignedInPerson, address: string, role: string): Promise<SignedInPerson> => {
    const before = tokenMails(address).length;
    const res = await call("POST", "/v1/people", { cookie: by.cookie, body: { email: address, role } });
    expect(res.status).toBe(201);
    const { token } = await mailedToken(address, before + 1);
    expect((await call("POST", "/v1/auth/password-reset/confirm", { body: { token, password: PASSWORD } })).status).toBe(204);
    return signInPerson(served.url, { email: address, password: PASSWORD });
  };

  beforeAll(async () => {
    db = await createTestSchema({ max: 5 });
    smtp = await startSmtpReceiver();
    // Composed once the socket listens: its address is the public base URL, so the Origin of a page of the service is its own.
    served = await serveOnFreePort((request: Request, env?: unknown) => service.fetch(request, env));
    service = composeService({ sql: db.sql, secrets: TEST_SECRETS, publicBaseUrl: served.url, logger: createLogger("silent"), rateLimiter: "off", clock, mailer: createSmtpMailer({ url: smtp.url, from: "agentq <no-reply@admin.test>" }), people: { origin: TRUSTED_LOOPBACK } });
  });
  afterAll(async () => {
    await served?.close();
    await service?.close();
    await smtp?.close();
    await db?.drop();
  });

  it("resets a forgotten password from the mailed token: 202 whatever the email, one-hour single-use token stored as a keyed hash, every session ends", async () => {
    const owner = await signUp("forgot");
    const address = owner.body.person.email as string;
    const workspaceId = owner.body.workspace.id as string;
    const asked = await call("POST", "/v1/auth/password-reset", { body: { email: address.toUpperCase() } });
    const unknown = await call("POST", "/v1/auth/password-reset", { body: { email: "nobody-at-all@admin.test" } });
    expect(asked.status).toBe(202);
    expect(unknown.status).toBe(202);
    expect(unknown.body).toEqual(asked.body);
    expect((await call("POST", "/v1/auth/password-reset", { body: { email: "not an address" } })).body.error).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { field: "email" } });

    const { token, mail } = await mailedToken(address);
    expect(token).toMatch(/^agq_pr_/);
    expect(mail.subject).toBe("Reset your agentq password");
    expect(mail.text).toContain(`${served.url}/reset-password#token=${token}`);
    const stored = await db.sql<{ token_hash: string; expires_at: Date; created_at: Date }[]>`select token_hash, expires_at, created_at from person_tokens where person_id = ${owner.body.person.id}`;
    expect(stored).toHaveLength(1);
    expect(stored[0]?.token_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(stored[0]?.token_hash).not.toContain(token.slice(7));
    expect(stored[0]!.expires_at.getTime() - stored[0]!.created_at.getTime()).toBe(3_600_000);

    // A password the rules refuse leaves the token usable.
    const weak = await call("POST", "/v1/auth/password-reset/confirm", { body: { token, password: "short" } });
    expect(weak.body.error).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { field: "password", reason: "too_short" } });
    const done = await call("POST", "/v1/auth/password-reset/confirm", { body: { token, password: NEW_PASSWORD } });
    expect(done.status).toBe(204);
    expect((await call("GET", "/v1/me", { cookie: owner.cookie })).body.error.code).toBe("SVC_UNAUTHENTICATED");
    expect((await call("POST", "/v1/auth/sign-in", { body: { email: address, password: PASSWORD } })).status).toBe(401);
    expect((await signInPerson(served.url, { email: address, password: NEW_PASSWORD })).body.person.id).toBe(owner.body.person.id);
    const replay = await call("POST", "/v1/auth/password-reset/confirm", { body: { token, password: "yet another fine password" } });
    expect(replay.status).toBe(401);
    expect(replay.body.error.code).toBe("SVC_UNAUTHENTICATED");
    await service.afterAnswer.settled();
    expect(await auditActivities(workspaceId)).toEqual(expect.arrayContaining(["person.password_reset_requested", "person.password_reset"]));
  });

  it("refuses an expired token, lets one of two concurrent confirmations win, and mails (and audits) at most three links per hour", async () => {
    const owner = await signUp("expiry");
    const address = owner.body.person.email as string;
    await call("POST", "/v1/auth/password-reset", { body: { email: address } });
    const first = await mailedToken(address, 1);
    clock.advance(60 * 60_000 + 1);
    expect((await call("POST", "/v1/auth/password-reset/confirm", { body: { token: first.token, password: NEW_PASSWORD } })).body.error.code).toBe("SVC_UNAUTHENTICATED");

    await call("POST", "/v1/auth/password-reset", { body: { email: address } });
    const second = await mailedToken(address, 2);
    const both = await Promise.all([1, 2].map(() => call("POST", "/v1/auth/password-reset/confirm", { body: { token: second.token, password: NEW_PASSWORD } })));
    expect(both.map((r) => r.status).sort()).toEqual([204, 401]);

    await call("POST", "/v1/auth/password-reset", { body: { email: address } });
    await call("POST", "/v1/auth/password-reset", { body: { email: address } });
    await mailedToken(address, 4);
    const fourth = await call("POST", "/v1/auth/password-reset", { body: { email: address } });
    expect(fourth.status).toBe(202);
    await service.afterAnswer.settled();
    expect(tokenMails(address)).toHaveLength(4);
    // Past the email's three mails an hour nothing is done, and nothing is audited (issue 25).
    const rows = await db.sql<{ details: Json }[]>`select details from audit_log where workspace_id = ${owner.body.workspace.id} and activity = 'person.password_reset_requested' order by id`;
    expect(rows).toHaveLength(4);
    for (const row of rows) expect(row.details).toMatchObject({ mailed: true });
    clock.advance(60 * 60_000 + 1);
  });

  it("invites a colleague whose address a squatter signed up with (issue 25): the invitation wins, the squatter's link then gets 409 and creates nothing", async () => {
    const owner = await signUp("victim");
    const colleague = email("colleague");
    // Before the fix, this sign-up created the colleague's account at once and the invitation below was 409.
    const squat = await call("POST", "/v1/auth/sign-up", { body: { email: colleague, password: "the squatter's long password", workspace_name: "squat" } });
    expect(squat.status).toBe(202);
    const squatterToken = signUpTokenIn((await nextMailTo(smtp, colleague, 0)).text) ?? "";
    const colleagueSession = await invited(owner, colleague, "admin");
    expect(colleagueSession.body.person).toMatchObject({ email: colleague, role: "admin" });
    const late = await call("POST", "/v1/auth/verify-email", { body: { token: squatterToken } });
    expect(late.status).toBe(409);
    expect(late.body.error).toMatchObject({ code: "SVC_RESOURCE_CONFLICT", details: { reason: "email_registered" } });
    expect(await db.sql`select 1 from workspaces where name = 'squat'`).toHaveLength(0);
    expect((await call("POST", "/v1/auth/sign-in", { body: { email: colleague, password: "the squatter's long password" } })).status).toBe(401);
  });

  it("invites an admin and a viewer with mailed set-password links; the list shows the people; roles and removal follow the rules", async () => {
    const owner = await signUp("team");
    const workspaceId = owner.body.workspace.id as string;
    const adminAddress = email("admin");
    const invite = await call("POST", "/v1/people", { cookie: owner.cookie, body: { email: adminAddress, role: "admin" } });
    expect(invite.status).toBe(201);
    expect(invite.body).toEqual({
      person: { id: expect.any(String), email: adminAddress, display_name: null, role: "admin", mfa_enabled: false, created_at: expect.any(String), password_set: false },
      invitation: { expires_at: expect.any(String), mailed: true },
    });
    expect(new Date(invite.body.invitation.expires_at as string).getTime() - clock.now().getTime()).toBe(72 * 3_600_000);
    const { token, mail } = await mailedToken(adminAddress);
    expect(token).toMatch(/^agq_iv_/);
    expect(mail.subject).toContain("team workspace");
    expect(mail.text).toContain(`/accept-invitation#token=${token}`);
    // Before accepting, the invited person cannot sign in.
    expect((await call("POST", "/v1/auth/sign-in", { body: { email: adminAddress, password: PASSWORD } })).status).toBe(401);
    expect((await call("POST", "/v1/auth/password-reset/confirm", { body: { token, password: PASSWORD } })).status).toBe(204);
    const admin = await signInPerson(served.url, { email: adminAddress, password: PASSWORD });
    expect(admin.body.person).toMatchObject({ role: "admin" });

    const viewer = await invited(admin, email("viewer"), "viewer");
    const list = await call("GET", "/v1/people", { cookie: admin.cookie });
    expect(list.status).toBe(200);
    expect((list.body.items as Json[]).map((p) => [p.role, p.password_set])).toEqual([["owner", true], ["admin", true], ["viewer", true]]);

    // A viewer manages no one; an admin may not touch the owner role.
    expect((await call("GET", "/v1/people", { cookie: viewer.cookie })).body.error.code).toBe("SVC_TIER_INSUFFICIENT");
    expect((await call("POST", "/v1/people", { cookie: viewer.cookie, body: { email: email("x"), role: "viewer" } })).body.error.code).toBe("SVC_TIER_INSUFFICIENT");
    const viewerId = viewer.body.person.id as string;
    expect((await call("PATCH", `/v1/people/${viewerId}`, { cookie: admin.cookie, body: { role: "owner" } })).body.error).toMatchObject({ code: "SVC_TIER_INSUFFICIENT", details: { reason: "owner_only" } });
    expect((await call("POST", "/v1/people", { cookie: admin.cookie, body: { email: email("o"), role: "owner" } })).body.error.code).toBe("SVC_TIER_INSUFFICIENT");
    expect((await call("DELETE", `/v1/people/${owner.body.person.id}`, { cookie: admin.cookie })).body.error.code).toBe("SVC_TIER_INSUFFICIENT");

    // The last owner can be neither demoted nor removed, by anyone.
    const ownerId = owner.body.person.id as string;
    expect((await call("PATCH", `/v1/people/${ownerId}`, { cookie: owner.cookie, body: { role: "admin" } })).body.error).toMatchObject({ code: "SVC_RESOURCE_CONFLICT", details: { reason: "last_owner" } });
    expect((await call("DELETE", `/v1/people/${ownerId}`, { cookie: owner.cookie })).status).toBe(409);

    // A role change applies from the next request: the viewer made admin may invite.
    const promoted = await call("PATCH", `/v1/people/${viewerId}`, { cookie: admin.cookie, body: { role: "admin" } });
    expect(promoted.body.person).toMatchObject({ id: viewerId, role: "admin" });
    expect((await call("GET", "/v1/people", { cookie: viewer.cookie })).status).toBe(200);
    // Two owners: one may step down.
    expect((await call("PATCH", `/v1/people/${admin.body.person.id}`, { cookie: owner.cookie, body: { role: "owner" } })).status).toBe(200);
    expect((await call("PATCH", `/v1/people/${ownerId}`, { cookie: owner.cookie, body: { role: "viewer" } })).body.person.role).toBe("viewer");

    // Removal ends the person's sessions at once, and frees the address.
    const removed = await call("DELETE", `/v1/people/${viewerId}`, { cookie: admin.cookie });
    expect(removed.status).toBe(204);
    expect((await call("GET", "/v1/me", { cookie: viewer.cookie })).body.error.code).toBe("SVC_UNAUTHENTICATED");
    expect(await db.sql`select 1 from person_sessions where person_id = ${viewerId}`).toHaveLength(0);
    expect((await call("POST", "/v1/people", { cookie: admin.cookie, body: { email: viewer.body.person.email, role: "viewer" } })).status).toBe(201);
    expect((await call("POST", "/v1/people", { cookie: admin.cookie, body: { email: adminAddress, role: "viewer" } })).body.error.code).toBe("SVC_RESOURCE_CONFLICT");
    expect(await auditActivities(workspaceId)).toEqual(expect.arrayContaining(["person.invited", "person.invitation_accepted", "person.role_changed", "person.removed"]));
  });

  it("re-sends an invitation when the mail could not be handed over; the older link stops working; a person with a password gets 409", async () => {
    const owner = await signUp("resend");
    const address = email("late");
    smtp.failNext = 1;
    const invite = await call("POST", "/v1/people", { cookie: owner.cookie, body: { email: address, role: "viewer" } });
    expect(invite.status).toBe(201);
    expect(invite.body.invitation.mailed).toBe(false);
    expect(smtp.to(address)).toHaveLength(0);
    const personId = invite.body.person.id as string;
    const again = await call("POST", `/v1/people/${personId}/invitation`, { cookie: owner.cookie });
    expect(again.status).toBe(201);
    expect(again.body.invitation.mailed).toBe(true);
    const first = await mailedToken(address, 1);
    await call("POST", `/v1/people/${personId}/invitation`, { cookie: owner.cookie });
    const second = await mailedToken(address, 2);
    expect((await call("POST", "/v1/auth/password-reset/confirm", { body: { token: first.token, password: PASSWORD } })).status).toBe(401);
    expect((await call("POST", "/v1/auth/password-reset/confirm", { body: { token: second.token, password: PASSWORD } })).status).toBe(204);
    expect((await call("POST", `/v1/people/${personId}/invitation`, { cookie: owner.cookie })).body.error).toMatchObject({ code: "SVC_RESOURCE_CONFLICT", details: { reason: "password_set" } });
  });

  it("takes only a person's session: no session is 401, a credential 403 SVC_TIER_INSUFFICIENT, a cookie write from another origin 403 SVC_CSRF_REJECTED", async () => {
    const owner = await signUp("edges");
    const account = await call("POST", "/v1/ai-accounts", { cookie: owner.cookie, body: { friendly_name: "helper" } });
    const credential = await call("POST", "/v1/credentials", { cookie: owner.cookie, body: { ai_account_id: account.body.id, tier: "administrative", scopes: ["manage_ai_accounts"], name: "admin" } });
    const bearer = { Authorization: `Bearer ${credential.body.token as string}` };
    expect((await call("GET", "/v1/people")).status).toBe(401);
    expect((await call("GET", "/v1/people", { headers: bearer })).body.error.code).toBe("SVC_TIER_INSUFFICIENT");
    expect((await call("POST", "/v1/people", { headers: bearer, body: { email: email("b"), role: "viewer" } })).body.error.code).toBe("SVC_TIER_INSUFFICIENT");
    expect((await call("POST", "/v1/people", { cookie: owner.cookie, origin: "https://evil.example", body: { email: email("c"), role: "viewer" } })).body.error.code).toBe("SVC_CSRF_REJECTED");
    expect((await call("POST", "/v1/people", { cookie: owner.cookie, origin: null, body: { email: email("d"), role: "viewer" } })).body.error.code).toBe("SVC_CSRF_REJECTED");
    expect((await call("POST", "/v1/auth/password-reset", { headers: { Origin: "https://evil.example" }, body: { email: owner.body.person.email } })).body.error.code).toBe("SVC_CSRF_REJECTED");
    expect((await call("GET", "/v1/people", { cookie: owner.cookie })).body.items).toHaveLength(1);
  });

  it("a session of workspace B reads and changes nothing of workspace A's people", async () => {
    const a = await signUp("ws-a");
    const aViewer = await invited(a, email("a-viewer"), "viewer");
    const b = await signUp("ws-b");
    const before = await db.sql`select id, role, password_hash from persons where workspace_id = ${a.body.workspace.id} order by id`;
    const listed = await call("GET", "/v1/people", { cookie: b.cookie });
    expect((listed.body.items as Json[]).map((p) => p.id)).toEqual([b.body.person.id]);
    for (const target of [a.body.person.id as string, aViewer.body.person.id as string]) {
      expect((await call("PATCH", `/v1/people/${target}`, { cookie: b.cookie, body: { role: "admin" } })).body.error.code).toBe("SVC_RESOURCE_NOT_FOUND");
      expect((await call("DELETE", `/v1/people/${target}`, { cookie: b.cookie })).body.error.code).toBe("SVC_RESOURCE_NOT_FOUND");
      expect((await call("POST", `/v1/people/${target}/invitation`, { cookie: b.cookie })).body.error.code).toBe("SVC_RESOURCE_NOT_FOUND");
    }
    expect(await db.sql`select id, role, password_hash from persons where workspace_id = ${a.body.workspace.id} order by id`).toEqual(before);
    expect((await call("GET", "/v1/me", { cookie: aViewer.cookie })).status).toBe(200);
    const bAudit = await auditActivities(b.body.workspace.id as string);
    expect(bAudit).not.toContain("person.role_changed");
  });

  it("never answers 500 to random bodies, tokens and ids on the password-reset and people routes", async () => {
    const owner = await signUp("fuzz");
    const bodies = fc.oneof(
      fc.jsonValue(),
      fc.record({ email: fc.oneof(fc.string({ maxLength: 400 }), fc.emailAddress(), fc.integer(), fc.constant(null)), role: fc.oneof(fc.constantFrom("owner", "admin", "viewer", "root"), fc.string(), fc.integer()) }, { requiredKeys: [] }),
      fc.record({
        token: fc.oneof(fc.string({ maxLength: 250 }), fc.stringMatching(/^[A-Za-z0-9_-]{43}$/).map((s) => `agq_pr_${s}`), fc.stringMatching(/^[A-Za-z0-9_-]{43}$/).map((s) => `agq_iv_${s}`), fc.integer()),
        password: fc.oneof(fc.string({ maxLength: 300 }), fc.constant(null)),
      }, { requiredKeys: [] }),
    );
    const routes = fc.oneof(
      fc.constantFrom(["POST", "/v1/auth/password-reset"], ["POST", "/v1/auth/password-reset/confirm"], ["POST", "/v1/people"]),
      fc.tuple(fc.constantFrom("PATCH", "DELETE", "POST"), fc.oneof(fc.string({ maxLength: 80 }), fc.constant(owner.body.person.id as string))).map(([m, id]) => [m, m === "POST" ? `/v1/people/${encodeURIComponent(id)}/invitation` : `/v1/people/${encodeURIComponent(id)}`]),
    );
    await fc.assert(
      fc.asyncProperty(routes, bodies, async ([method, path], body) => {
        const res = await fetch(`${served.url}${path}`, { method, headers: { Cookie: owner.cookie, Origin: served.url, "Content-Type": "application/json" }, body: JSON.stringify(body) });
        expect(res.status).toBeLessThan(500);
        if (res.status >= 400) expect(((await res.json()) as Json).error.code).toMatch(/^SVC_/);
        else await res.body?.cancel();
      }),
      { numRuns: 120 },
    );
  });
});
