import { describe, expect, it } from "vitest";
import { authorize } from "../access/authorize.ts";
import type { PersonPrincipal } from "../access/model.ts";
import { isDomainError } from "../errors.ts";
import { findOperation } from "../catalogue.ts";
import { createInMemoryDeps } from "../testing/create-in-memory-deps.ts";
import { InMemoryMailer } from "../testing/in-memory-mailer.ts";
import { seedPrincipal, seedTestWorkspace } from "../testing/principal-fixtures.ts";
import { testPasswordHasher } from "../testing/test-password-hasher.ts";
import { testSecretSealer } from "../testing/test-secret-sealer.ts";
import { authenticateSession } from "./authenticate-session.ts";
import { passwordRefusal } from "./password-rules.ts";
import { DEFAULT_PEOPLE_SETTINGS, PEOPLE_LIMITS } from "./people-settings.ts";
import { signIn, signOut } from "./sign-in.ts";
import { signUpVerified as signUp } from "../testing/sign-up-fixtures.ts";
import { personWorkspaceRefusal, requireStepUp } from "./step-up.ts";
import { Secret, TOTP } from "otpauth";
import { confirmTotp, disableMfa, enrollTotp, regenerateRecoveryCodes, stepUp, verifyMfaSignIn } from "./mfa-flows.ts";

const PASSWORD = "a long and quiet river";
const ORIGIN = { clientAddress: "192.0.2.1", country: null };

async function codeOf(p: Promise<unknown> | (() => unknown)): Promise<string | null> {
  try {
    await (typeof p === "function" ? p() : p);
    return null;
  } catch (e) {
    return isDomainError(e) ? e.code : "not a DomainError";
  }
}

function world() {
  const w = createInMemoryDeps();
  w.deps.people = { passwords: testPasswordHasher(), settings: DEFAULT_PEOPLE_SETTINGS, sealer: testSecretSealer() };
  w.deps.mailer = new InMemoryMailer();
  return w;
}

describe("people in the core (in memory)", () => {
  it("signs up an owner with a session, audited in the same transaction; signs in; signs out", async () => {
    const w = world();
    const up = await signUp(w.deps, { email: " Ada@Example.TEST ", password: PASSWORD, workspace_name: "Acme" }, { origin: ORIGIN, requestId: "r1" });
    expect(up.person).toMatchObject({ email: "ada@example.test", role: "owner", mfaEnabledAt: null });
    expect(up.token).toMatch(/^agq_se_/);
    expect(up.session.tokenHash).not.toContain(up.token);
    const principal = await authenticateSession(w.deps, up.token);
    expect(principal).toMatchObject({ kind: "person", person: { id: up.person.id }, workspace: { id: up.workspace.id } });
    expect((await w.deps.stores.plans.findWorkspacePlan({ workspaceId: up.workspace.id }))?.plan).toBe("free");
    const signedIn = await signIn(w.deps, { email: "ADA@example.test", password: PASSWORD }, { origin: ORIGIN, requestId: "r2" });
    expect(signedIn.kind).toBe("signed_in");
    await signOut(w.deps, signedIn.session, { requestId: "r3" });
    expect(await codeOf(authenticateSession(w.deps, signedIn.token))).toBe("SVC_UNAUTHENTICATED");
    const rows = await w.deps.stores.audit.list({ workspaceId: up.workspace.id, activity: null, messageId: null, includeOperatorSignificant: true, after: null, limit: 20 });
    expect(rows.map((r) => r.activity).sort()).toEqual(["person.signed_in", "person.signed_in", "person.signed_out", "person.signed_up", "workspace.created"]);
    expect(JSON.stringify(rows)).not.toContain(PASSWORD);
  });

  it("gives the same 401 for a wrong email and a wrong password, and throttles 10 failures per email and 30 per address in 15 minutes", async () => {
    const w = world();
    await signUp(w.deps, { email: "bo@example.test", password: PASSWORD, workspace_name: "B" }, { origin: ORIGIN, requestId: null });
    expect(await codeOf(signIn(w.deps, { email: "nobody@example.test", password: PASSWORD }, { origin: ORIGIN, requestId: null }))).toBe("SVC_UNAUTHENTICATED");
    for (let i = 1; i < PEOPLE_LIMITS.failuresPerEmail; i++) expect(await codeOf(signIn(w.deps, { email: "bo@example.test", password: "wrong" }, { origin: ORIGIN, requestId: null }))).toBe("SVC_UNAUTHENTICATED");
    expect(await codeOf(signIn(w.deps, { email: "bo@example.test", password: "wrong" }, { origin: { clientAddress: "198.51.100.7", country: null }, requestId: null }))).toBe("SVC_UNAUTHENTICATED");
    const limited = await signIn(w.deps, { email: "bo@example.test", password: PASSWORD }, { origin: ORIGIN, requestId: null }).catch((e: unknown) => e);
    expect(limited).toMatchObject({ code: "SVC_RATE_LIMITED", details: { bucket: "sign_in_email" } });
    expect((limited as { retryAfterSeconds: number }).retryAfterSeconds).toBeGreaterThan(0);
    w.clock.advance(PEOPLE_LIMITS.throttleWindowMs + 1);
    expect((await signIn(w.deps, { email: "bo@example.test", password: PASSWORD }, { origin: ORIGIN, requestId: null })).kind).toBe("signed_in");
    // 30 failures from one address, spread over many emails.
    for (let i = 0; i < PEOPLE_LIMITS.failuresPerAddress; i++) await codeOf(signIn(w.deps, { email: `x${i}@example.test`, password: "wrong" }, { origin: ORIGIN, requestId: null }));
    expect(await codeOf(signIn(w.deps, { email: "bo@example.test", password: PASSWORD }, { origin: ORIGIN, requestId: null }))).toBe("SVC_RATE_LIMITED");
  });

  it("applies the password rules: 12 to 256 characters, not common, not containing the email's local part", () => {
    expect(passwordRefusal("eleven chars", "a@b.test")).toBeNull();
    expect(passwordRefusal("elevenchars", "a@b.test")).toBe("too_short");
    expect(passwordRefusal("é".repeat(256), "a@b.test")).toBeNull();
    expect(passwordRefusal("é".repeat(257), "a@b.test")).toBe("too_long");
    expect(passwordRefusal("QWERTY123456", "a@b.test")).toBe("common");
    expect(passwordRefusal("hello-MARGARET-there", "margaret@b.test")).toBe("contains_email");
  });

  it("requireStepUp: a credential is refused; a person without MFA gets SVC_STEP_UP_REQUIRED mfa_not_enabled; with MFA, only within the step-up window", async () => {
    const w = world();
    const ws = await seedTestWorkspace(w.deps.stores);
    const agent = await seedPrincipal(w.deps.stores, ws);
    expect(await codeOf(() => requireStepUp(agent, w.clock.now()))).toBe("SVC_TIER_INSUFFICIENT");
    const up = await signUp(w.deps, { email: "st@example.test", password: PASSWORD, workspace_name: "S" }, { origin: ORIGIN, requestId: null });
    const p = await authenticateSession(w.deps, up.token);
    expect(() => requireStepUp(p, w.clock.now())).toThrow(expect.objectContaining({ code: "SVC_STEP_UP_REQUIRED", details: { reason: "mfa_not_enabled" } }));
    const now = w.clock.now();
    const withMfa: PersonPrincipal = { ...p, person: { ...p.person, mfaEnabledAt: now }, session: { ...p.session, stepUpUntil: new Date(now.getTime() + PEOPLE_LIMITS.stepUpMs) } };
    expect(requireStepUp(withMfa, now)).toBe(withMfa);
    expect(() => requireStepUp(withMfa, new Date(now.getTime() + PEOPLE_LIMITS.stepUpMs))).toThrow(expect.objectContaining({ code: "SVC_STEP_UP_REQUIRED", details: { reason: "step_up_expired" } }));
  });

  it("authorizes sessions by role: reads open to all, writes by owner and admin only, agent-only scopes never", async () => {
    const w = world();
    const up = await signUp(w.deps, { email: "roles@example.test", password: PASSWORD, workspace_name: "R" }, { origin: ORIGIN, requestId: null });
    const owner = await authenticateSession(w.deps, up.token);
    const viewer: PersonPrincipal = { ...owner, person: { ...owner.person, role: "viewer" } };
    const admin: PersonPrincipal = { ...owner, person: { ...owner.person, role: "admin" } };
    const op = (name: string) => {
      const found = findOperation(name);
      if (!found) throw new Error(name);
      return found;
    };
    for (const who of [owner, admin, viewer]) for (const name of ["list_ai_accounts", "browse_audit_log", "list_webhooks", "list_messages", "get_policies"]) expect(() => authorize(who, op(name).auth, op(name).mutates)).not.toThrow();
    for (const who of [owner, admin]) for (const name of ["create_ai_account", "issue_credential", "create_webhook", "publish_policy"]) expect(() => authorize(who, op(name).auth, op(name).mutates)).not.toThrow();
    expect(await codeOf(() => authorize(viewer, op("create_ai_account").auth, true))).toBe("SVC_TIER_INSUFFICIENT");
    expect(await codeOf(() => authorize(owner, op("send").auth, true))).toBe("SVC_SCOPE_INSUFFICIENT");
    expect(await codeOf(() => authorize(owner, op("create_project").auth, true))).toBe("SVC_SCOPE_INSUFFICIENT");
    expect(personWorkspaceRefusal({ ...owner, workspace: { ...owner.workspace, state: "frozen" } }, "list_ai_accounts")?.code).toBe("SVC_FROZEN");
    expect(personWorkspaceRefusal({ ...owner, workspace: { ...owner.workspace, state: "closed" } }, "list_ai_accounts")?.code).toBe("SVC_WORKSPACE_CLOSED");
    expect(personWorkspaceRefusal({ ...owner, workspace: { ...owner.workspace, state: "closed" } }, "get_me")).toBeNull();
  });

  it("ends a session after 30 idle minutes or 12 hours, and refuses a pending-MFA session as a signed-in one", async () => {
    const w = world();
    const up = await signUp(w.deps, { email: "t@example.test", password: PASSWORD, workspace_name: "T" }, { origin: ORIGIN, requestId: null });
    w.clock.advance(PEOPLE_LIMITS.sessionIdleMs - 1000);
    await authenticateSession(w.deps, up.token);
    w.clock.advance(PEOPLE_LIMITS.sessionIdleMs - 1000);
    await authenticateSession(w.deps, up.token);
    w.clock.advance(PEOPLE_LIMITS.sessionIdleMs);
    expect(await codeOf(authenticateSession(w.deps, up.token))).toBe("SVC_UNAUTHENTICATED");
    expect(await codeOf(authenticateSession(w.deps, "agq_se_not-a-session"))).toBe("SVC_UNAUTHENTICATED");
  });

  it("MFA: confirm ends sessions without MFA; a sign-in with a code counts as a step-up for five minutes; a step-up renews it; codes are accepted once per step", async () => {
    const w = world();
    const up = await signUp(w.deps, { email: "mfa@example.test", password: PASSWORD, workspace_name: "M" }, { origin: ORIGIN, requestId: null });
    const me = await authenticateSession(w.deps, up.token);
    const { secret, otpauthUri } = await enrollTotp(w.deps, me, { requestId: null });
    expect(otpauthUri).toContain("issuer=agentq");
    const code = (offset = 0) => new TOTP({ secret: Secret.fromBase32(secret), algorithm: "SHA1", digits: 6, period: 30 }).generate({ timestamp: w.clock.now().getTime() + offset * 30_000 });
    const { recoveryCodes, endedSessionIds } = await confirmTotp(w.deps, me, { code: code() }, { requestId: null });
    expect(recoveryCodes).toHaveLength(10);
    expect(endedSessionIds).toEqual([up.session.id]);
    expect(await codeOf(authenticateSession(w.deps, up.token))).toBe("SVC_UNAUTHENTICATED");
    const pw = await signIn(w.deps, { email: "mfa@example.test", password: PASSWORD }, { origin: ORIGIN, requestId: null });
    expect(pw.kind).toBe("mfa_required");
    expect(await codeOf(authenticateSession(w.deps, pw.token))).toBe("SVC_UNAUTHENTICATED");
    // The confirming code's step is spent; the next step's code signs in.
    expect(await codeOf(verifyMfaSignIn(w.deps, pw.token, { code: code() }, { origin: ORIGIN, requestId: null }))).toBe("SVC_UNAUTHENTICATED");
    w.clock.advance(30_000);
    const signedIn = await verifyMfaSignIn(w.deps, pw.token, { code: code() }, { origin: ORIGIN, requestId: null });
    const p = await authenticateSession(w.deps, signedIn.token);
    expect(requireStepUp(p, w.clock.now())).toBe(p);
    w.clock.advance(5 * 60_000);
    const later = await authenticateSession(w.deps, signedIn.token);
    expect(() => requireStepUp(later, w.clock.now())).toThrow(expect.objectContaining({ code: "SVC_STEP_UP_REQUIRED", details: { reason: "step_up_expired" } }));
    const { stepUpUntil } = await stepUp(w.deps, later, { recovery_code: recoveryCodes[3] }, { origin: ORIGIN, requestId: null });
    expect(stepUpUntil.getTime()).toBe(w.clock.now().getTime() + 5 * 60_000);
    expect(requireStepUp(await authenticateSession(w.deps, signedIn.token), w.clock.now()).person.id).toBe(up.person.id);
    expect(await codeOf(stepUp(w.deps, later, { recovery_code: recoveryCodes[3] }, { origin: ORIGIN, requestId: null }))).toBe("SVC_UNAUTHENTICATED");
    const rows = await w.deps.stores.audit.list({ workspaceId: up.workspace.id, activity: null, messageId: null, includeOperatorSignificant: true, after: null, limit: 50 });
    expect(rows.map((r) => r.activity)).toEqual(expect.arrayContaining(["person.mfa_enrollment_started", "person.mfa_enabled", "person.mfa_failed", "person.stepped_up"]));
    expect(JSON.stringify(rows)).not.toContain(secret);

    // New recovery codes and MFA off: each after a fresh step-up.
    w.clock.advance(5 * 60_000);
    const stale = await authenticateSession(w.deps, signedIn.token);
    expect(await codeOf(regenerateRecoveryCodes(w.deps, stale, { requestId: null }))).toBe("SVC_STEP_UP_REQUIRED");
    expect(await codeOf(disableMfa(w.deps, stale, { requestId: null }))).toBe("SVC_STEP_UP_REQUIRED");
    await stepUp(w.deps, stale, { recovery_code: recoveryCodes[4] }, { origin: ORIGIN, requestId: null });
    const fresh = await authenticateSession(w.deps, signedIn.token);
    const renewed = await regenerateRecoveryCodes(w.deps, fresh, { requestId: null });
    expect(renewed.recoveryCodes).toHaveLength(10);
    expect(await codeOf(stepUp(w.deps, fresh, { recovery_code: recoveryCodes[5] }, { origin: ORIGIN, requestId: null }))).toBe("SVC_UNAUTHENTICATED");
    await stepUp(w.deps, fresh, { recovery_code: renewed.recoveryCodes[0] }, { origin: ORIGIN, requestId: null });
    await disableMfa(w.deps, await authenticateSession(w.deps, signedIn.token), { requestId: null });
    expect((await w.deps.stores.people.findById({ workspaceId: up.workspace.id, personId: up.person.id }))?.mfaEnabledAt).toBeNull();
    expect(await w.deps.stores.people.countRecoveryCodes({ workspaceId: up.workspace.id, personId: up.person.id })).toBe(0);
    const after = await w.deps.stores.audit.list({ workspaceId: up.workspace.id, activity: null, messageId: null, includeOperatorSignificant: true, after: null, limit: 50 });
    expect(after.map((r) => r.activity)).toEqual(expect.arrayContaining(["person.recovery_codes_regenerated", "person.mfa_disabled"]));
  });
});
