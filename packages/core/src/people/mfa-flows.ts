import type { Person, PersonPrincipal, Principal } from "../access/model.ts";
import type { CoreDeps } from "../deps.ts";
import { DomainError, malformed } from "../errors.ts";
import type { Stores } from "../ports.ts";
import { hashRecoveryCode, newRecoveryCodes, newTotpSecret, otpauthUri, totpStepOf } from "./mfa.ts";
import { personAuditEntry } from "./people-audit.ts";
import { PEOPLE_LIMITS, type RequestOrigin } from "./people-settings.ts";
import { requirePeople } from "./require-people.ts";
import { requireStepUp } from "./step-up.ts";
import { admitSignInAttempt, throttleKeys } from "./sign-in.ts";
import { findLiveSession, openSession, type OpenedSession } from "./sessions.ts";
import { sessionUnauthenticated } from "./authenticate-session.ts";

/** A second factor as sent: a TOTP code or a recovery code (exactly one). */
export interface SecondFactorInput {
  code?: string;
  recovery_code?: string;
}

/** The one message of a refused second factor: wrong, spent or replayed look the same. */
export const SECOND_FACTOR_REFUSED_MESSAGE = "The code is not valid.";

function refused(): DomainError {
  return new DomainError("SVC_UNAUTHENTICATED", SECOND_FACTOR_REFUSED_MESSAGE);
}

function oneFactor(input: SecondFactorInput): { kind: "totp"; code: string } | { kind: "recovery_code"; code: string } {
  const hasCode = input.code !== undefined;
  const hasRecovery = input.recovery_code !== undefined;
  if (hasCode === hasRecovery) throw malformed("Send exactly one of code and recovery_code.", { field: "code" });
  return hasCode ? { kind: "totp", code: (input.code ?? "").trim() } : { kind: "recovery_code", code: input.recovery_code ?? "" };
}

/**
 * Checks a second factor of a person with MFA on, in the caller's transaction: a TOTP code is
 * accepted once per time step (one step either side of now; the step is recorded with a
 * compare-and-set, so a replay, even a concurrent one, is refused), a recovery code once ever.
 * Returns how it was passed, or null when refused.
 */
async function passSecondFactor(deps: Pick<CoreDeps, "secrets" | "people">, stores: Stores, person: Person, factor: ReturnType<typeof oneFactor>, now: Date): Promise<"totp" | "recovery_code" | null> {
  if (factor.kind === "recovery_code") {
    return (await stores.people.useRecoveryCode({ workspaceId: person.workspaceId, personId: person.id, codeHash: hashRecoveryCode(deps.secrets.pepper, factor.code), now })) ? "recovery_code" : null;
  }
  const mfa = await stores.people.loadMfa({ workspaceId: person.workspaceId, personId: person.id });
  const secret = mfa?.totpSecretSealed == null ? null : requirePeople(deps).sealer.open(mfa.totpSecretSealed);
  if (secret === null) return null;
  const step = totpStepOf(secret, factor.code, now);
  if (step === null) return null;
  return (await stores.people.useTotpStep({ workspaceId: person.workspaceId, personId: person.id, step })) ? "totp" : null;
}

/** Audits a refused second factor (`person.mfa_failed`); its attempt keeps its place in the throttle's windows. */
async function auditFailure(deps: Pick<CoreDeps, "tx" | "clock" | "ids">, person: Person, requestId: string | null, during: string): Promise<void> {
  await deps.tx.run(async (stores) => {
    await stores.audit.append({ entry: personAuditEntry(deps, { workspaceId: person.workspaceId, occurredAt: deps.clock.now(), activity: "person.mfa_failed", subjectId: person.id, actorPersonId: null, requestId, details: { during } }) });
  });
}

/**
 * Checks `factor` of `person` as a sign-in attempt and, when right, runs `then` with its method in
 * the same transaction. Throttled like sign-in: the attempt takes its place in the email's and the
 * client address's windows before the code is checked, and gives it back when the code is right.
 * @throws DomainError SVC_UNAUTHENTICATED (a wrong, spent or replayed code, audited as a failure
 *   `during`), SVC_RATE_LIMITED; whatever `then` throws.
 */
async function withSecondFactor<T>(
  deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids" | "secrets" | "people">,
  person: Person,
  factor: ReturnType<typeof oneFactor>,
  ctx: { origin: RequestOrigin; requestId: string | null },
  during: "sign_in" | "step_up",
  then: (stores: Stores, now: Date, method: "totp" | "recovery_code") => Promise<T>,
): Promise<T> {
  const attemptId = await admitSignInAttempt(deps, throttleKeys(deps.secrets.pepper, person.email, ctx.origin.clientAddress));
  const passed = await deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const method = await passSecondFactor(deps, stores, person, factor, now);
    if (method === null) return null;
    await stores.signInThrottle.releaseAttempt({ id: attemptId });
    return { value: await then(stores, now, method) };
  });
  if (passed === null) {
    await auditFailure(deps, person, ctx.requestId, during);
    throw refused();
  }
  return passed.value;
}

/**
 * Starts TOTP enrolment: a new secret, kept encrypted as the person's pending secret until
 * confirmed (a second enrolment replaces it). Audit row `person.mfa_enrollment_started`.
 * @throws DomainError SVC_RESOURCE_CONFLICT (MFA is already on).
 */
export async function enrollTotp(deps: Pick<CoreDeps, "tx" | "clock" | "ids" | "people">, principal: PersonPrincipal, ctx: { requestId: string | null }): Promise<{ secret: string; otpauthUri: string }> {
  const people = requirePeople(deps);
  const { person } = principal;
  if (person.mfaEnabledAt !== null) throw new DomainError("SVC_RESOURCE_CONFLICT", "MFA is already enabled.", { reason: "mfa_enabled" });
  const secret = newTotpSecret();
  await deps.tx.run(async (stores) => {
    await stores.people.setPendingTotp({ workspaceId: person.workspaceId, personId: person.id, sealed: people.sealer.seal(secret) });
    await stores.audit.append({ entry: personAuditEntry(deps, { workspaceId: person.workspaceId, occurredAt: deps.clock.now(), activity: "person.mfa_enrollment_started", subjectId: person.id, actorPersonId: person.id, requestId: ctx.requestId }) });
  });
  return { secret, otpauthUri: otpauthUri(secret, person.email) };
}

/**
 * The TOTP enrolment a person started and has not confirmed: its secret and otpauth URI, so a
 * wrong confirmation code can be retried against the entry already scanned. Null when MFA is on
 * or no enrolment is pending.
 */
export async function pendingTotpEnrolment(deps: Pick<CoreDeps, "stores" | "people">, principal: PersonPrincipal): Promise<{ secret: string; otpauthUri: string } | null> {
  const people = requirePeople(deps);
  const { person } = principal;
  if (person.mfaEnabledAt !== null) return null;
  const mfa = await deps.stores.people.loadMfa({ workspaceId: person.workspaceId, personId: person.id });
  const secret = mfa?.totpPendingSealed == null ? null : people.sealer.open(mfa.totpPendingSealed);
  return secret === null ? null : { secret, otpauthUri: otpauthUri(secret, person.email) };
}

/**
 * Confirms TOTP with a code from the pending secret: MFA on, ten single-use recovery codes (only
 * their keyed hashes kept; any earlier ones dropped), and every session of the person created
 * without MFA ended, the current one included (the spec: enabling MFA signs out every session
 * created without it). One transaction, audit row `person.mfa_enabled`.
 * @throws DomainError SVC_MALFORMED_REQUEST (no code), SVC_RESOURCE_CONFLICT (MFA on already,
 *   or no enrolment started), SVC_UNAUTHENTICATED (wrong code).
 */
export async function confirmTotp(deps: Pick<CoreDeps, "tx" | "clock" | "ids" | "secrets" | "people">, principal: PersonPrincipal, input: { code: string }, ctx: { requestId: string | null }): Promise<{ recoveryCodes: string[]; endedSessionIds: string[] }> {
  const people = requirePeople(deps);
  const { person } = principal;
  if (person.mfaEnabledAt !== null) throw new DomainError("SVC_RESOURCE_CONFLICT", "MFA is already enabled.", { reason: "mfa_enabled" });
  return deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const mfa = await stores.people.loadMfa({ workspaceId: person.workspaceId, personId: person.id });
    const pending = mfa?.totpPendingSealed == null ? null : people.sealer.open(mfa.totpPendingSealed);
    if (pending === null) throw new DomainError("SVC_RESOURCE_CONFLICT", "Start with POST /v1/auth/mfa/totp/enroll.", { reason: "not_enrolling" });
    const step = totpStepOf(pending, input.code.trim(), now);
    if (step === null) throw refused();
    const recoveryCodes = newRecoveryCodes();
    const enabled = await stores.people.confirmTotp({ workspaceId: person.workspaceId, personId: person.id, step, now, recoveryCodeHashes: recoveryCodes.map((c) => hashRecoveryCode(deps.secrets.pepper, c)) });
    if (!enabled) throw new DomainError("SVC_RESOURCE_CONFLICT", "MFA was enabled meanwhile.", { reason: "mfa_enabled" });
    const endedSessionIds = await stores.personSessions.endAllOfPerson({ workspaceId: person.workspaceId, personId: person.id, now, onlyWithoutMfa: true });
    await stores.audit.append({ entry: personAuditEntry(deps, { workspaceId: person.workspaceId, occurredAt: now, activity: "person.mfa_enabled", subjectId: person.id, actorPersonId: person.id, requestId: ctx.requestId, details: { ended_sessions: endedSessionIds.length } }) });
    return { recoveryCodes, endedSessionIds };
  });
}

/**
 * Completes a sign-in with MFA: the pending-MFA session (from the password step) and a second
 * factor. Throttled like sign-in: the attempt takes its place in the person's email and the
 * client address's windows before the code is checked (a wrong code stays there as a failed
 * sign-in; a right one gives its place back). On success the
 * pending session ends and a session created with MFA opens, which counts as a step-up for five
 * minutes; audit row `person.signed_in` (mfa true, method).
 * @throws DomainError SVC_UNAUTHENTICATED (no live pending session, or a wrong, spent or
 *   replayed code), SVC_RATE_LIMITED, SVC_MALFORMED_REQUEST.
 */
export async function verifyMfaSignIn(deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids" | "secrets" | "people">, pendingToken: string | null, input: SecondFactorInput, ctx: { origin: RequestOrigin; requestId: string | null }): Promise<OpenedSession & { person: Person }> {
  const people = requirePeople(deps);
  const factor = oneFactor(input);
  const pending = pendingToken === null ? null : await findLiveSession(deps, pendingToken, { stage: "pending_mfa", now: deps.clock.now() });
  if (pending === null) throw sessionUnauthenticated();
  const person = await deps.stores.people.findById({ workspaceId: pending.workspaceId, personId: pending.personId });
  if (person === null) throw sessionUnauthenticated();
  const opened = await withSecondFactor(deps, person, factor, ctx, "sign_in", async (stores, now, method) => {
    // The pending session ended meanwhile (a concurrent verify won): roll the spent code back.
    if (!(await stores.personSessions.end({ workspaceId: pending.workspaceId, sessionId: pending.id, now }))) throw sessionUnauthenticated();
    const session = await openSession(deps, stores, { workspaceId: person.workspaceId, personId: person.id, stage: "active", withMfa: true, now, settings: people.settings });
    await stores.audit.append({ entry: personAuditEntry(deps, { workspaceId: person.workspaceId, occurredAt: now, activity: "person.signed_in", subjectId: person.id, actorPersonId: person.id, requestId: ctx.requestId, details: { session_id: session.session.id, mfa: true, method } }) });
    return session;
  });
  return { ...opened, person };
}

/**
 * Steps up the session with a second factor: the session's step-up holds for five minutes
 * (`requireStepUp`). Audit row `person.stepped_up`. Throttled like sign-in (the attempt takes its
 * place first; a wrong code stays there as a failed sign-in).
 * @throws DomainError SVC_STEP_UP_REQUIRED (details.reason "mfa_not_enabled": MFA is off),
 *   SVC_UNAUTHENTICATED (wrong, spent or replayed code), SVC_RATE_LIMITED, SVC_MALFORMED_REQUEST.
 */
export async function stepUp(deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids" | "secrets" | "people">, principal: PersonPrincipal, input: SecondFactorInput, ctx: { origin: RequestOrigin; requestId: string | null }): Promise<{ stepUpUntil: Date }> {
  const factor = oneFactor(input);
  const { person, session } = principal;
  if (person.mfaEnabledAt === null) throw new DomainError("SVC_STEP_UP_REQUIRED", "Enable MFA first: a step-up needs a second factor.", { reason: "mfa_not_enabled" });
  const until = await withSecondFactor(deps, person, factor, ctx, "step_up", async (stores, now, method) => {
    const stepUpUntil = new Date(now.getTime() + PEOPLE_LIMITS.stepUpMs);
    if ((await stores.personSessions.setStepUp({ workspaceId: session.workspaceId, sessionId: session.id, stepUpUntil })) === null) throw sessionUnauthenticated();
    await stores.audit.append({ entry: personAuditEntry(deps, { workspaceId: person.workspaceId, occurredAt: now, activity: "person.stepped_up", subjectId: person.id, actorPersonId: person.id, requestId: ctx.requestId, details: { session_id: session.id, method } }) });
    return stepUpUntil;
  });
  return { stepUpUntil: until };
}

/**
 * Turns the person's MFA off after a fresh step-up: the secret and the recovery codes are
 * dropped. Audit row `person.mfa_disabled`.
 * @throws DomainError SVC_STEP_UP_REQUIRED (no fresh step-up), SVC_RESOURCE_CONFLICT (MFA off already).
 */
export async function disableMfa(deps: Pick<CoreDeps, "tx" | "clock" | "ids">, principal: Principal, ctx: { requestId: string | null }): Promise<void> {
  const now = deps.clock.now();
  const { person } = requireStepUp(principal, now);
  await deps.tx.run(async (stores) => {
    if (!(await stores.people.disableTotp({ workspaceId: person.workspaceId, personId: person.id }))) throw new DomainError("SVC_RESOURCE_CONFLICT", "MFA is not enabled.", { reason: "mfa_not_enabled" });
    await stores.audit.append({ entry: personAuditEntry(deps, { workspaceId: person.workspaceId, occurredAt: now, activity: "person.mfa_disabled", subjectId: person.id, actorPersonId: person.id, requestId: ctx.requestId }) });
  });
}

/**
 * Replaces the person's recovery codes with ten new ones after a fresh step-up (the old ones stop
 * working); the new codes are returned once. Audit row `person.recovery_codes_regenerated`.
 * @throws DomainError SVC_STEP_UP_REQUIRED (no fresh step-up, or MFA off).
 */
export async function regenerateRecoveryCodes(deps: Pick<CoreDeps, "tx" | "clock" | "ids" | "secrets">, principal: Principal, ctx: { requestId: string | null }): Promise<{ recoveryCodes: string[] }> {
  const now = deps.clock.now();
  const { person } = requireStepUp(principal, now);
  const recoveryCodes = newRecoveryCodes();
  await deps.tx.run(async (stores) => {
    const replaced = await stores.people.replaceRecoveryCodes({ workspaceId: person.workspaceId, personId: person.id, now, recoveryCodeHashes: recoveryCodes.map((c) => hashRecoveryCode(deps.secrets.pepper, c)) });
    if (!replaced) throw new DomainError("SVC_RESOURCE_CONFLICT", "MFA is not enabled.", { reason: "mfa_not_enabled" });
    await stores.audit.append({ entry: personAuditEntry(deps, { workspaceId: person.workspaceId, occurredAt: now, activity: "person.recovery_codes_regenerated", subjectId: person.id, actorPersonId: person.id, requestId: ctx.requestId }) });
  });
  return { recoveryCodes };
}
