import { deleteClosedWorkspacePayloads, OPERATIONAL_SCOPES, sealAuditChains, verifyAuditExport, verifyWorkspaceChain } from "@agentq/core";
import { InMemoryMailer, ManualClock, TEST_SECRETS } from "@agentq/core/testing";
import { serveOnFreePort, type ServedApp } from "@agentq/mcp/testing";
import { createTestSchema, type TestSchema } from "@agentq/postgres/testing";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { composeService, type ComposedService } from "./compose.ts";
import { createLogger } from "@agentq/runtime";
import { Secret, TOTP } from "otpauth";
import { cookieFrom, PENDING_MFA_COOKIE, SESSION_COOKIE, signInPerson, signUpPerson, type SignedInPerson } from "./testing/people.ts";

// Issue 13 (people, slice B3) over real HTTP on PostgreSQL: closing a workspace (owner + step-up;
// every AI account and credential revoked at once; only sign-in, /v1/me, export, erase and
// sign-out afterwards; payloads deleted by the background job 30 days later, with the clock
// moved), erasing a person (the audit chain still verifies) and the export document.
// The first test walks the whole day with real TOTP codes (enrol, confirm, sign in with a code,
// step up, export, close); the others grant the step-up in SQL (MFA on, step_up_until ahead).

type Json = Record<string, any>;
const PASSWORD = "a long and quiet river";
const DAY = 24 * 3_600_000;

describe("closing, erasing and exporting (PostgreSQL, real HTTP)", () => {
  let db: TestSchema;
  let service: ComposedService;
  let served: ServedApp;
  const clock = new ManualClock(new Date());
  let n = 0;
  const email = (tag: string) => `${tag}-${++n}@closing.test`;

  const call = async (method: string, path: string, p: { cookie?: string; body?: unknown; headers?: Record<string, string> } = {}): Promise<{ status: number; body: Json; text: string; res: Response }> => {
    const headers: Record<string, string> = { ...p.headers };
    if (p.cookie !== undefined) headers.Cookie = p.cookie;
    if (p.cookie !== undefined) headers.Origin = served.url;
    if (p.body !== undefined) headers["Content-Type"] = "application/json";
    const res = await fetch(`${served.url}${path}`, { method, headers, ...(p.body === undefined ? {} : { body: JSON.stringify(p.body) }) });
    const text = await res.text();
    let body: Json = {};
    try {
      body = text === "" ? {} : (JSON.parse(text) as Json);
    } catch {
      body = {};
    }
    return { status: res.status, body, text, res };
  };
  const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
  const signUp = (tag: string) => signUpPerson(served.url, { email: email(tag), password: PASSWORD, workspaceName: `${tag} workspace`, inbox: service.deps.mailer as InMemoryMailer });
  /** MFA on and a fresh step-up for every live session of the person (what POST /v1/auth/step-up records). */
  const stepUp = async (person: SignedInPerson, minutes = 5) => {
    await db.sql`update persons set mfa_enabled_at = ${clock.now()} where id = ${person.body.person.id}`;
    await db.sql`update person_sessions set step_up_until = ${new Date(clock.now().getTime() + minutes * 60_000)} where person_id = ${person.body.person.id} and ended_at is null`;
  };
  /** Two AI accounts, an operational credential of the first with every operational scope, one message sent to the second, a project with a decision and a backlog item. */
  const populate = async (owner: SignedInPerson) => {
    const sender = await call("POST", "/v1/ai-accounts", { cookie: owner.cookie, body: { friendly_name: "sender" } });
    const receiver = await call("POST", "/v1/ai-accounts", { cookie: owner.cookie, body: { friendly_name: "receiver" } });
    const credential = await call("POST", "/v1/credentials", { cookie: owner.cookie, body: { ai_account_id: sender.body.id, tier: "operational", scopes: [...OPERATIONAL_SCOPES], name: "worker" } });
    expect(credential.status).toBe(201);
    const token = credential.body.token as string;
    const sent = await call("POST", "/v1/messages/send", { headers: { ...bearer(token), "Idempotency-Key": `k-${++n}` }, body: { envelope: { recipient: { friendly_name: "receiver" }, template: "directive" }, payload: { directive_kind: "build", summary: "ship it", instructions: "secret-instructions-123" } } });
    expect(sent.status).toBe(201);
    const project = await call("POST", "/v1/projects", { headers: bearer(token), body: { name: "Site rebuild" } });
    expect(project.status).toBe(201);
    const decision = await call("POST", "/v1/decision-log", { headers: bearer(token), body: { project_id: project.body.id, title: "Bundler", decision_md: "Use esbuild.", rationale_md: "Fast." } });
    expect(decision.status).toBe(201);
    const item = await call("POST", "/v1/backlog", { headers: bearer(token), body: { project_id: project.body.id, title: "CSS not minified", kind: "bug" } });
    expect(item.status).toBe(201);
    return { token, accountIds: [sender.body.id as string, receiver.body.id as string], credentialId: credential.body.credential.id as string, messageId: sent.body.message_id as string, projectId: project.body.id as string };
  };
  const exportOf = async (cookie: string) => {
    const res = await call("GET", "/v1/me/export", { cookie });
    expect(res.status).toBe(200);
    return { doc: JSON.parse(res.text) as Json, text: res.text, res: res.res };
  };

  beforeAll(async () => {
    db = await createTestSchema({ max: 5 });
    // Composed once the socket listens: its address is the public base URL, so the Origin of a page of the service is its own.
    served = await serveOnFreePort((request: Request, env?: unknown) => service.fetch(request, env));
    service = composeService({ sql: db.sql, secrets: TEST_SECRETS, publicBaseUrl: served.url, logger: createLogger("silent"), rateLimiter: "off", clock, mailer: new InMemoryMailer() });
  });
  afterAll(async () => {
    await served?.close();
    await service?.close();
    await db?.drop();
  });

  it("a whole day with real TOTP: enrols (signed out everywhere), signs in with a code, steps up, exports, closes the workspace", async () => {
    const first = await signUp("day");
    const address = first.body.person.email as string;
    const codeAt = (secret: string) => new TOTP({ secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: 30 }).generate({ timestamp: clock.now().getTime() });
    const enrolled = await call("POST", "/v1/auth/mfa/totp/enroll", { cookie: first.cookie });
    const secret = enrolled.body.secret as string;
    expect((await call("POST", "/v1/auth/mfa/totp/confirm", { cookie: first.cookie, body: { code: codeAt(secret) } })).status).toBe(200);
    expect((await call("GET", "/v1/me", { cookie: first.cookie })).status).toBe(401);
    clock.advance(30_000);
    const password = await call("POST", "/v1/auth/sign-in", { body: { email: address, password: PASSWORD } });
    expect(password.body).toEqual({ mfa_required: true });
    const pending = `${PENDING_MFA_COOKIE}=${cookieFrom(password.res, PENDING_MFA_COOKIE) ?? ""}`;
    const verified = await call("POST", "/v1/auth/mfa/verify", { cookie: pending, body: { code: codeAt(secret) } });
    expect(verified.status).toBe(200);
    const cookie = `${SESSION_COOKIE}=${cookieFrom(verified.res, SESSION_COOKIE) ?? ""}`;
    clock.advance(6 * 60_000);
    expect((await call("DELETE", "/v1/workspaces/me", { cookie })).body.error).toMatchObject({ code: "SVC_STEP_UP_REQUIRED", details: { reason: "step_up_expired" } });
    expect((await call("POST", "/v1/auth/step-up", { cookie, body: { code: codeAt(secret) } })).status).toBe(200);
    expect((await exportOf(cookie)).doc.person).toMatchObject({ email: address, mfa_enabled: true });
    const closed = await call("DELETE", "/v1/workspaces/me", { cookie });
    expect(closed.status).toBe(200);
    expect(closed.body.workspace).toMatchObject({ id: first.body.workspace.id, state: "closed" });
    expect((await call("GET", "/v1/ai-accounts", { cookie })).body.error.code).toBe("SVC_WORKSPACE_CLOSED");
  });

  it("exports one JSON document with the person and everything of the workspace, no secrets, and an audit chain that verifies", async () => {
    const owner = await signUp("export");
    const made = await populate(owner);
    await sealAuditChains(service.deps);
    const { doc, text, res } = await exportOf(owner.cookie);
    expect(res.headers.get("content-disposition")).toMatch(/^attachment; filename="agentq-export-/);
    expect(doc).toMatchObject({ format: "agentq.export.v1", person: { id: owner.body.person.id, email: owner.body.person.email }, workspace: { id: owner.body.workspace.id, state: "active", plan: "free", closed_at: null } });
    expect((doc.people as Json[]).map((p) => p.id)).toEqual([owner.body.person.id]);
    expect((doc.ai_accounts as Json[]).map((a) => a.id).sort()).toEqual([...made.accountIds].sort());
    expect((doc.credentials as Json[]).map((c) => c.id)).toEqual([made.credentialId]);
    expect(doc.messages).toEqual([expect.objectContaining({ message_id: made.messageId, state: "pending", payload: { directive_kind: "build", summary: "ship it", instructions: "secret-instructions-123" } })]);
    expect(doc.webhooks).toEqual([]);
    expect(doc.policies).toEqual([]);
    expect(doc.session_state.projects).toEqual([expect.objectContaining({ id: made.projectId })]);
    expect(doc.session_state.decisions).toHaveLength(1);
    expect(doc.session_state.backlog).toHaveLength(1);
    expect(doc.session_state.build_sessions).toEqual([]);
    // No secret: neither the token nor anything shaped like a stored hash or password hash.
    expect(text).not.toContain(made.token);
    expect(text).not.toContain(made.token.slice(7));
    expect(text).not.toMatch(/token_hash|password_hash|argon2|whsec_/);
    const chain = doc.audit_chain as Json[];
    expect(chain.length).toBeGreaterThan(5);
    expect(verifyAuditExport(chain.map((row) => JSON.stringify(row)))).toMatchObject({ ok: true });
    expect(await db.sql`select 1 from audit_log where workspace_id = ${owner.body.workspace.id} and activity = 'workspace.exported'`).toHaveLength(1);
  });

  it("shows a viewer no other person's address, refuses a credential, and shows one workspace nothing of another", async () => {
    const a = await signUp("exp-a");
    const madeA = await populate(a);
    const b = await signUp("exp-b");
    const { text } = await exportOf(b.cookie);
    for (const secret of [madeA.messageId, madeA.credentialId, ...madeA.accountIds, madeA.projectId, a.body.person.email as string, "secret-instructions-123"]) expect(text).not.toContain(secret);
    const invite = await call("POST", "/v1/people", { cookie: a.cookie, body: { email: email("viewer"), role: "viewer" } });
    expect(invite.status).toBe(201);
    const token = /#token=(agq_iv_[A-Za-z0-9_-]{43})/.exec(((service.deps.mailer as InMemoryMailer).to(invite.body.person.email as string).at(-1)?.text) ?? "")?.[1] ?? "";
    expect((await call("POST", "/v1/auth/password-reset/confirm", { body: { token, password: PASSWORD } })).status).toBe(204);
    const viewer = await signInPerson(served.url, { email: invite.body.person.email as string, password: PASSWORD });
    const viewerDoc = (await exportOf(viewer.cookie)).doc;
    expect(viewerDoc.person.role).toBe("viewer");
    expect(viewerDoc).not.toHaveProperty("people");
    expect(viewerDoc.messages).toHaveLength(1);
    expect((await call("GET", "/v1/me/export", { headers: bearer(madeA.token) })).body.error.code).toBe("SVC_TIER_INSUFFICIENT");
    expect((await call("GET", "/v1/me/export")).status).toBe(401);
  });

  it("closes a workspace: owner + step-up only; every AI account and credential revoked at once; then only sign-in, /v1/me, export, erase and sign-out work", async () => {
    const owner = await signUp("close");
    const workspaceId = owner.body.workspace.id as string;
    const made = await populate(owner);
    expect((await call("DELETE", "/v1/workspaces/me", { headers: bearer(made.token) })).body.error.code).toBe("SVC_TIER_INSUFFICIENT");
    expect((await call("DELETE", "/v1/workspaces/me", { cookie: owner.cookie })).body.error).toMatchObject({ code: "SVC_STEP_UP_REQUIRED", details: { reason: "mfa_not_enabled" } });
    await stepUp(owner);
    clock.advance(6 * 60_000);
    expect((await call("DELETE", "/v1/workspaces/me", { cookie: owner.cookie })).body.error).toMatchObject({ code: "SVC_STEP_UP_REQUIRED", details: { reason: "step_up_expired" } });
    expect((await call("GET", "/v1/workspaces/me", { cookie: owner.cookie })).body).toMatchObject({ id: workspaceId, state: "active" });

    await stepUp(owner);
    const closed = await call("DELETE", "/v1/workspaces/me", { cookie: owner.cookie });
    expect(closed.status).toBe(200);
    const closedAt = new Date(closed.body.workspace.closed_at as string);
    expect(closed.body).toEqual({ workspace: { id: workspaceId, state: "closed", closed_at: clock.now().toISOString() }, payload_deletion_at: new Date(closedAt.getTime() + 30 * DAY).toISOString() });
    expect(await db.sql`select state from ai_accounts where workspace_id = ${workspaceId} and state <> 'revoked'`).toHaveLength(0);
    expect(await db.sql`select state from credentials where workspace_id = ${workspaceId} and state <> 'revoked'`).toHaveLength(0);
    expect((await call("GET", "/v1/me", { headers: bearer(made.token) })).status).toBe(401);
    const activities = (await db.sql<{ activity: string }[]>`select activity from audit_log where workspace_id = ${workspaceId}`).map((r) => r.activity);
    expect(activities.filter((a) => a === "ai_account.revoked")).toHaveLength(2);
    expect(activities.filter((a) => a === "credential.revoked")).toHaveLength(1);
    expect(activities).toContain("workspace.closed");

    // Everything else is 403 SVC_WORKSPACE_CLOSED, naming the end date.
    for (const [method, path, body] of [["GET", "/v1/ai-accounts"], ["POST", "/v1/ai-accounts", { friendly_name: "late" }], ["GET", "/v1/people"], ["GET", "/v1/workspaces/me"], ["GET", "/v1/audit-log"], ["DELETE", "/v1/workspaces/me"]] as const) {
      const refused = await call(method, path, { cookie: owner.cookie, ...(body === undefined ? {} : { body }) });
      expect(refused.status, `${method} ${path}`).toBe(403);
      expect(refused.body.error).toMatchObject({ code: "SVC_WORKSPACE_CLOSED", details: { payload_deletion_at: closed.body.payload_deletion_at } });
      expect(refused.body.error.message).toContain(closed.body.payload_deletion_at);
    }
    expect((await call("GET", "/v1/me", { cookie: owner.cookie })).body.workspace.state).toBe("closed");
    expect((await exportOf(owner.cookie)).doc.workspace).toMatchObject({ state: "closed", payload_deletion_at: closed.body.payload_deletion_at });
    expect((await call("POST", "/v1/auth/sign-out", { cookie: owner.cookie })).status).toBe(204);
    // Sign-in still works (MFA off here, so the password alone completes it).
    await db.sql`update persons set mfa_enabled_at = null where id = ${owner.body.person.id}`;
    const again = await signInAgain(owner);
    expect((await call("GET", "/v1/me", { cookie: again })).status).toBe(200);

    // The payloads stay for 30 days, then the background job deletes them.
    clock.advance(30 * DAY - 60_000);
    expect(await deleteClosedWorkspacePayloads(service.deps)).toBe(0);
    expect((await db.sql<{ payload: unknown }[]>`select payload from messages where id = ${made.messageId}`)[0]?.payload).toMatchObject({ summary: "ship it" });
    clock.advance(2 * 60_000);
    expect(await deleteClosedWorkspacePayloads(service.deps)).toBeGreaterThanOrEqual(1);
    expect((await db.sql<{ payload: unknown }[]>`select payload from messages where id = ${made.messageId}`)[0]?.payload).toBeNull();
    expect(await db.sql`select 1 from audit_log where workspace_id = ${workspaceId} and activity = 'workspace.payloads_deleted'`).toHaveLength(1);
    expect(await deleteClosedWorkspacePayloads(service.deps)).toBe(0);
    const late = (await exportOf(await signInAgain(owner))).doc;
    expect(late.messages).toEqual([expect.objectContaining({ message_id: made.messageId, payload: null })]);
  });

  /** Signs the person in again with the password (sign-in works in a closed workspace); the Cookie header. */
  async function signInAgain(person: SignedInPerson): Promise<string> {
    return (await signInPerson(served.url, { email: person.body.person.email as string, password: PASSWORD })).cookie;
  }

  it("erases the last owner: personal data gone, the workspace frozen with its AI accounts revoked, the workspace record and a chain that still verifies", async () => {
    const owner = await signUp("erase");
    const workspaceId = owner.body.workspace.id as string;
    const made = await populate(owner);
    expect((await call("DELETE", "/v1/me", { headers: bearer(made.token) })).body.error.code).toBe("SVC_TIER_INSUFFICIENT");
    expect((await call("DELETE", "/v1/me", { cookie: owner.cookie })).body.error.code).toBe("SVC_STEP_UP_REQUIRED");
    await stepUp(owner);
    const erased = await call("DELETE", "/v1/me", { cookie: owner.cookie });
    expect(erased.status).toBe(200);
    expect(erased.body).toEqual({ erased: { person_id: owner.body.person.id, erased_at: expect.any(String) }, workspace: { id: workspaceId, state: "frozen" } });
    expect(erased.res.headers.getSetCookie().some((l) => l.includes("agentq_session=;"))).toBe(true);
    expect((await call("GET", "/v1/me", { cookie: owner.cookie })).status).toBe(401);
    expect(await db.sql`select 1 from persons where workspace_id = ${workspaceId}`).toHaveLength(0);
    expect(await db.sql`select 1 from person_sessions where workspace_id = ${workspaceId}`).toHaveLength(0);
    expect((await db.sql<{ state: string }[]>`select state from workspaces where id = ${workspaceId}`)[0]?.state).toBe("frozen");
    expect(await db.sql`select 1 from ai_accounts where workspace_id = ${workspaceId} and state <> 'revoked'`).toHaveLength(0);
    expect((await call("GET", "/v1/me", { headers: bearer(made.token) })).status).toBe(401);
    // The email is free again and appears nowhere in the workspace's audit rows.
    const rows = await db.sql<{ details: Json }[]>`select details from audit_log where workspace_id = ${workspaceId}`;
    expect(JSON.stringify(rows)).not.toContain(owner.body.person.email);
    expect((await signUpPerson(served.url, { email: owner.body.person.email as string, password: PASSWORD, workspaceName: "fresh start", inbox: service.deps.mailer as InMemoryMailer })).body.person.id).not.toBe(owner.body.person.id);
    await sealAuditChains(service.deps);
    expect(await verifyWorkspaceChain(service.deps.stores.audit, workspaceId)).toMatchObject({ verified: true });
  });

  it("erases a viewer alone: the workspace and its agents are untouched", async () => {
    const owner = await signUp("keep");
    const made = await populate(owner);
    const viewerEmail = email("leaver");
    const invite = await call("POST", "/v1/people", { cookie: owner.cookie, body: { email: viewerEmail, role: "viewer" } });
    const token = /#token=(agq_iv_[A-Za-z0-9_-]{43})/.exec(((service.deps.mailer as InMemoryMailer).to(viewerEmail).at(-1)?.text) ?? "")?.[1] ?? "";
    expect(invite.status).toBe(201);
    expect((await call("POST", "/v1/auth/password-reset/confirm", { body: { token, password: PASSWORD } })).status).toBe(204);
    const viewer = await signInPerson(served.url, { email: viewerEmail, password: PASSWORD });
    await stepUp(viewer);
    const erased = await call("DELETE", "/v1/me", { cookie: viewer.cookie });
    expect(erased.body.workspace).toEqual({ id: owner.body.workspace.id, state: "active" });
    expect((await call("GET", "/v1/me", { headers: bearer(made.token) })).status).toBe(200);
    expect((await call("GET", "/v1/people", { cookie: owner.cookie })).body.items).toHaveLength(1);
  });

  it("never answers 500 to random cookies and headers on the closing, erasing and export routes", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(["GET", "/v1/workspaces/me"], ["DELETE", "/v1/workspaces/me"], ["DELETE", "/v1/me"], ["GET", "/v1/me/export"]),
        fc.oneof(fc.string({ maxLength: 120 }), fc.stringMatching(/^[A-Za-z0-9_-]{43}$/).map((s) => `agq_se_${s}`)),
        fc.option(fc.constantFrom("https://evil.example", "null", served.url)),
        async ([method, path], value, origin) => {
          const res = await fetch(`${served.url}${path}`, { method, headers: { Cookie: `__Host-agentq_session=${encodeURIComponent(value)}`, ...(origin === null ? {} : { Origin: origin }) } });
          expect(res.status).toBeLessThan(500);
          expect(((await res.json()) as Json).error.code).toMatch(/^SVC_/);
        },
      ),
      { numRuns: 60 },
    );
  });
});
