import { describe, expect, it } from "vitest";
import { isDomainError } from "../errors.ts";
import { createInMemoryDeps } from "../testing/create-in-memory-deps.ts";
import { InMemoryMailer } from "../testing/in-memory-mailer.ts";
import { signUpTokenIn } from "../testing/sign-up-fixtures.ts";
import { testPasswordHasher } from "../testing/test-password-hasher.ts";
import { testSecretSealer } from "../testing/test-secret-sealer.ts";
import { authenticateSession } from "./authenticate-session.ts";
import { DEFAULT_PEOPLE_SETTINGS } from "./people-settings.ts";
import { SIGN_UP_LINK_LIFETIME_MS, SIGN_UP_MAILS_PER_HOUR } from "./pending-sign-up.ts";
import { signIn } from "./sign-in.ts";
import type { MailMessage } from "../mail/mail-message.ts";
import { requestPasswordReset } from "./password-reset.ts";
import { requestSignUp, type SignUpOutcome } from "./sign-up.ts";
import { verifyEmail } from "./verify-email.ts";

// DESIGN §2c "Sign-up proves the email", in the core: nothing exists before the mailed link is
// used; the link works once, for 24 hours; a registered address gets a different mail and no
// pending sign-up; the first of two pending sign-ups of one address to be verified wins.

const PASSWORD = "a long and quiet river";
const ORIGIN = { clientAddress: "192.0.2.1", country: null };
const CTX = { origin: ORIGIN, requestId: null };

function world(settings = DEFAULT_PEOPLE_SETTINGS) {
  const w = createInMemoryDeps();
  const mailer = new InMemoryMailer();
  w.deps.people = { passwords: testPasswordHasher(), settings, sealer: testSecretSealer() };
  w.deps.publicBaseUrl = "https://queue.example.test";
  w.deps.mailer = mailer;
  return { ...w, mailer };
}

/** A sign-up request and its work (what the edge runs after the answer): the outcome and the mail it sent, if any. */
async function askSignUp(w: ReturnType<typeof world>, input: Parameters<typeof requestSignUp>[1], ctx: Parameters<typeof requestSignUp>[2] = CTX): Promise<{ outcome: SignUpOutcome; mail: MailMessage | null }> {
  const before = w.mailer.sent.length;
  const requested = await requestSignUp(w.deps, input, ctx);
  const outcome = await requested.work();
  return { outcome, mail: w.mailer.sent.slice(before)[0] ?? null };
}

async function codeOf(p: Promise<unknown>): Promise<{ code: string; details?: unknown } | null> {
  try {
    await p;
    return null;
  } catch (e) {
    if (!isDomainError(e)) throw e;
    return { code: e.code, details: e.details };
  }
}

describe("sign-up proves the email (in memory)", () => {
  it("creates nothing but a pending sign-up and a mail with a /verify-email link; the link creates the workspace, the owner and a session, once", async () => {
    const w = world();
    const asked = await askSignUp(w, { email: " Ada@Example.TEST ", password: PASSWORD, workspace_name: "Acme", display_name: "Ada" });
    expect(asked.mail?.to).toBe("ada@example.test");
    expect(asked.mail?.text).toContain("https://queue.example.test/verify-email#token=agq_ev_");
    // The requester's own words never travel in the mail.
    expect(asked.mail?.text).not.toContain("Acme");
    expect(await w.deps.stores.people.findByEmail({ email: "ada@example.test" })).toBeNull();
    expect(w.tables.access.workspaces.values()).toHaveLength(0);
    const pending = w.tables.people.pendingSignUps.values();
    expect(pending).toHaveLength(1);
    expect(JSON.stringify(pending)).not.toContain(PASSWORD);
    const token = signUpTokenIn(asked.mail?.text ?? "") ?? "";
    expect(JSON.stringify(pending)).not.toContain(token);
    expect(await codeOf(signIn(w.deps, { email: "ada@example.test", password: PASSWORD }, CTX))).toMatchObject({ code: "SVC_UNAUTHENTICATED" });

    const done = await verifyEmail(w.deps, { token }, { origin: ORIGIN, requestId: "r1" });
    expect(done.person).toMatchObject({ email: "ada@example.test", displayName: "Ada", role: "owner" });
    expect(done.workspace.name).toBe("Acme");
    expect((await authenticateSession(w.deps, done.token)).person.id).toBe(done.person.id);
    expect((await w.deps.stores.plans.findWorkspacePlan({ workspaceId: done.workspace.id }))?.plan).toBe("free");
    expect((await signIn(w.deps, { email: "ada@example.test", password: PASSWORD }, CTX)).kind).toBe("signed_in");
    const rows = await w.deps.stores.audit.list({ workspaceId: done.workspace.id, activity: null, messageId: null, includeOperatorSignificant: true, after: null, limit: 20 });
    expect(rows.map((r) => r.activity).sort()).toEqual(["person.signed_in", "person.signed_in", "person.signed_up", "workspace.created"]);
    expect(w.tables.people.pendingSignUps.values()).toHaveLength(0);
    expect(await codeOf(verifyEmail(w.deps, { token }, CTX))).toEqual({ code: "SVC_UNAUTHENTICATED", details: { field: "token" } });
  });

  it("refuses a malformed, unknown or expired token with 401 SVC_UNAUTHENTICATED (details.field token)", async () => {
    const w = world();
    const asked = await askSignUp(w, { email: "late@example.test", password: PASSWORD, workspace_name: "L" });
    const token = signUpTokenIn(asked.mail?.text ?? "") ?? "";
    for (const bad of ["", "agq_ev_short", `agq_pr_${token.slice(7)}`, `agq_ev_${"A".repeat(43)}`]) expect(await codeOf(verifyEmail(w.deps, { token: bad }, CTX))).toEqual({ code: "SVC_UNAUTHENTICATED", details: { field: "token" } });
    w.clock.advance(SIGN_UP_LINK_LIFETIME_MS);
    expect(await codeOf(verifyEmail(w.deps, { token }, CTX))).toEqual({ code: "SVC_UNAUTHENTICATED", details: { field: "token" } });
    expect(await w.deps.stores.people.findByEmail({ email: "late@example.test" })).toBeNull();
  });

  it("lets two pending sign-ups of one address exist; the first verified wins, the other then gets 409 email_registered and stays unused", async () => {
    const w = world();
    const squatter = await askSignUp(w, { email: "bo@example.test", password: PASSWORD, workspace_name: "Squat" });
    const owner = await askSignUp(w, { email: "bo@example.test", password: "another quiet long river", workspace_name: "Bo's" });
    const ownerToken = signUpTokenIn(owner.mail?.text ?? "") ?? "";
    const squatterToken = signUpTokenIn(squatter.mail?.text ?? "") ?? "";
    expect((await verifyEmail(w.deps, { token: ownerToken }, CTX)).workspace.name).toBe("Bo's");
    expect(await codeOf(verifyEmail(w.deps, { token: squatterToken }, CTX))).toEqual({ code: "SVC_RESOURCE_CONFLICT", details: { field: "email", reason: "email_registered" } });
    expect(w.tables.access.workspaces.values()).toHaveLength(1);
  });

  it("mails a registered address that it has an account (with a reset link) instead, creates nothing, and audits the attempt in that workspace", async () => {
    const w = world();
    const first = await askSignUp(w, { email: "cy@example.test", password: PASSWORD, workspace_name: "Cy" });
    const cy = await verifyEmail(w.deps, { token: signUpTokenIn(first.mail?.text ?? "") ?? "" }, CTX);
    const again = await askSignUp(w, { email: "CY@example.test", password: "a different long password", workspace_name: "Other" });
    expect(again.mail?.to).toBe("cy@example.test");
    expect(signUpTokenIn(again.mail?.text ?? "")).toBeNull();
    expect(again.mail?.text).toMatch(/\/reset-password#token=agq_pr_/);
    expect(w.tables.people.pendingSignUps.values()).toHaveLength(0);
    expect(w.tables.access.workspaces.values()).toHaveLength(1);
    const rows = await w.deps.stores.audit.list({ workspaceId: cy.workspace.id, activity: "person.sign_up_attempted", messageId: null, includeOperatorSignificant: true, after: null, limit: 5 });
    expect(rows.map((r) => r.details)).toEqual([expect.objectContaining({ mailed: true })]);
  });

  it("answers before any lookup: the request reads no person and writes nothing; its work does (issue 25)", async () => {
    const w = world();
    const findByEmail = w.deps.stores.people.findByEmail.bind(w.deps.stores.people);
    let reads = 0;
    w.deps.stores.people.findByEmail = (p) => {
      reads++;
      return findByEmail(p);
    };
    const requested = await requestSignUp(w.deps, { email: "kai@example.test", password: PASSWORD, workspace_name: "K" }, CTX);
    expect(reads).toBe(0);
    expect(w.tables.people.pendingSignUps.values()).toHaveLength(0);
    expect(await requested.work()).toBe("verification_mailed");
    expect(reads).toBe(1);
    expect(w.tables.people.pendingSignUps.values()).toHaveLength(1);
  });

  it("a registered address's mail draws on the email's reset-mail budget, shared with password resets: past it nothing is mailed and nothing audited", async () => {
    const w = world();
    const first = await askSignUp(w, { email: "lu@example.test", password: PASSWORD, workspace_name: "Lu" });
    const lu = await verifyEmail(w.deps, { token: signUpTokenIn(first.mail?.text ?? "") ?? "" }, CTX);
    for (let i = 0; i < 2; i++) expect(await (await requestPasswordReset(w.deps, { email: "lu@example.test" }, CTX)).work()).toBe("mailed");
    expect((await askSignUp(w, { email: "lu@example.test", password: PASSWORD, workspace_name: "Again" })).outcome).toBe("registered_mailed");
    const past = await askSignUp(w, { email: "lu@example.test", password: PASSWORD, workspace_name: "Again" });
    expect(past).toEqual({ outcome: "registered_too_many_for_email", mail: null });
    expect(await (await requestPasswordReset(w.deps, { email: "lu@example.test" }, CTX)).work()).toBe("too_many_for_email");
    const rows = async (activity: string) => (await w.deps.stores.audit.list({ workspaceId: lu.workspace.id, activity, messageId: null, includeOperatorSignificant: true, after: null, limit: 10 })).length;
    expect(await rows("person.sign_up_attempted")).toBe(1);
    expect(await rows("person.password_reset_requested")).toBe(2);
  });

  it("a registered address's mail that cannot be handed over: no audit row, its reset token spent; a new address's: its pending sign-up taken back", async () => {
    const w = world();
    const first = await askSignUp(w, { email: "mo@example.test", password: PASSWORD, workspace_name: "Mo" });
    const mo = await verifyEmail(w.deps, { token: signUpTokenIn(first.mail?.text ?? "") ?? "" }, CTX);
    w.mailer.failing = true;
    expect(await codeOf(askSignUp(w, { email: "mo@example.test", password: PASSWORD, workspace_name: "Again" }))).toMatchObject({ code: "SVC_SERVICE_UNAVAILABLE" });
    expect(await w.deps.stores.audit.list({ workspaceId: mo.workspace.id, activity: "person.sign_up_attempted", messageId: null, includeOperatorSignificant: true, after: null, limit: 5 })).toHaveLength(0);
    expect(w.tables.personTokens.tokens.values().filter((t) => t.personId === mo.person.id).every((t) => t.usedAt !== null)).toBe(true);
    expect(await codeOf(askSignUp(w, { email: "new@example.test", password: PASSWORD, workspace_name: "N" }))).toMatchObject({ code: "SVC_SERVICE_UNAVAILABLE" });
    expect(w.tables.people.pendingSignUps.values()).toHaveLength(0);
  });

  it("counts sign-ups and verifications per client address: the 11th sign-up and the 31st verification in their windows get 429, before any work", async () => {
    const w = world();
    for (let i = 0; i < 10; i++) await requestSignUp(w.deps, { email: `n${i}@example.test`, password: PASSWORD, workspace_name: "N" }, CTX);
    // Refused before the body is looked at: a malformed body gets 429 too.
    expect(await codeOf(requestSignUp(w.deps, { email: "not an address", password: PASSWORD, workspace_name: "N" }, CTX))).toMatchObject({ code: "SVC_RATE_LIMITED", details: { bucket: "sign_up", limit: 10, window: "PT1H" } });
    const elsewhere = { origin: { clientAddress: "192.0.2.77", country: null }, requestId: null };
    expect((await askSignUp(w, { email: "o@example.test", password: PASSWORD, workspace_name: "O" }, elsewhere)).outcome).toBe("verification_mailed");
    for (let i = 0; i < 30; i++) expect(await codeOf(verifyEmail(w.deps, { token: "agq_ev_unknown" }, CTX))).toMatchObject({ code: "SVC_UNAUTHENTICATED" });
    expect(await codeOf(verifyEmail(w.deps, { token: "agq_ev_unknown" }, CTX))).toMatchObject({ code: "SVC_RATE_LIMITED", details: { bucket: "verify_email", limit: 30, window: "PT15M" } });
    w.clock.advance(60 * 60_000);
    expect((await askSignUp(w, { email: "p@example.test", password: PASSWORD, workspace_name: "P" })).outcome).toBe("verification_mailed");
  });

  it("mails at most three links per address per hour; a fourth request answers the same and mails nothing", async () => {
    const w = world();
    for (let i = 0; i < SIGN_UP_MAILS_PER_HOUR; i++) expect((await askSignUp(w, { email: "dee@example.test", password: PASSWORD, workspace_name: "D" })).mail).not.toBeNull();
    expect((await askSignUp(w, { email: "dee@example.test", password: PASSWORD, workspace_name: "D" })).mail).toBeNull();
    w.clock.advance(3_600_001);
    expect((await askSignUp(w, { email: "dee@example.test", password: PASSWORD, workspace_name: "D" })).mail).not.toBeNull();
  });

  it("refuses sign-up when closed (403 SVC_TIER_INSUFFICIENT) and from a blocked country (403 SVC_GEOFENCE_BLOCKED), at the request and at the verification", async () => {
    const open = world();
    const asked = await askSignUp(open, { email: "eve@example.test", password: PASSWORD, workspace_name: "E" });
    const token = signUpTokenIn(asked.mail?.text ?? "") ?? "";
    open.deps.people = { ...open.deps.people!, settings: { ...DEFAULT_PEOPLE_SETTINGS, signup: "closed" } };
    expect(await codeOf(requestSignUp(open.deps, { email: "fay@example.test", password: PASSWORD, workspace_name: "F" }, CTX))).toMatchObject({ code: "SVC_TIER_INSUFFICIENT", details: { reason: "signup_closed" } });
    expect(await codeOf(verifyEmail(open.deps, { token }, CTX))).toMatchObject({ code: "SVC_TIER_INSUFFICIENT" });
    open.deps.people = { ...open.deps.people, settings: { ...DEFAULT_PEOPLE_SETTINGS, blockedCountries: ["KP"] } };
    const fromKp = { origin: { clientAddress: "192.0.2.9", country: "KP" }, requestId: null };
    expect(await codeOf(requestSignUp(open.deps, { email: "gus@example.test", password: PASSWORD, workspace_name: "G" }, fromKp))).toMatchObject({ code: "SVC_GEOFENCE_BLOCKED" });
    expect(await codeOf(verifyEmail(open.deps, { token }, fromKp))).toMatchObject({ code: "SVC_GEOFENCE_BLOCKED" });
    expect((await verifyEmail(open.deps, { token }, CTX)).person.email).toBe("eve@example.test");
  });

  it("refuses sign-up on a server without a mail port (503 SVC_SERVICE_UNAVAILABLE): no link could arrive", async () => {
    const w = world();
    delete w.deps.mailer;
    expect(await codeOf(requestSignUp(w.deps, { email: "ivy@example.test", password: PASSWORD, workspace_name: "I" }, CTX))).toMatchObject({ code: "SVC_SERVICE_UNAVAILABLE" });
    expect(w.tables.people.pendingSignUps.values()).toHaveLength(0);
  });

  it("checks every field and the password before writing anything, the same for a registered address", async () => {
    const w = world();
    const bad = [
      [{ email: "not an address", password: PASSWORD, workspace_name: "W" }, "email"],
      [{ email: "a..b@example.test", password: PASSWORD, workspace_name: "W" }, "email"],
      [{ email: "hal@example.test", password: PASSWORD, workspace_name: "   " }, "workspace_name"],
      [{ email: "hal@example.test", password: PASSWORD, workspace_name: "W", display_name: " " }, "display_name"],
      [{ email: "hal@example.test", password: "short", workspace_name: "W" }, "password"],
    ] as const;
    for (const [input, field] of bad) expect(await codeOf(requestSignUp(w.deps, input, CTX))).toMatchObject({ code: "SVC_MALFORMED_REQUEST", details: { field } });
    expect(w.tables.people.pendingSignUps.values()).toHaveLength(0);
  });
});
