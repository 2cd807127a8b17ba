import type { Person } from "../access/model.ts";
import { hashToken } from "../access/token.ts";
import type { CoreDeps } from "../deps.ts";
import { DomainError } from "../errors.ts";
import { normalizeEmail } from "./email.ts";
import { personAuditEntry } from "./people-audit.ts";
import { PEOPLE_LIMITS, type RequestOrigin } from "./people-settings.ts";
import { requirePeople } from "./require-people.ts";
import { sessionUnauthenticated } from "./authenticate-session.ts";
import { openSession, type OpenedSession } from "./sessions.ts";

/** The one message of a refused sign-in: a wrong email and a wrong password look the same. */
export const SIGN_IN_REFUSED_MESSAGE = "The email or password is not correct.";

/** What a sign-in gave: a session, or (MFA on) a pending-MFA session awaiting the second factor. */
export type SignInResult = ({ kind: "signed_in"; person: Person } & OpenedSession) | ({ kind: "mfa_required"; person: Person } & OpenedSession);

/** The throttle keys of a sign-in: keyed hashes of the email and the client address (never stored in clear). */
export function throttleKeys(pepper: Uint8Array, email: string, clientAddress: string): { emailKey: string; addressKey: string } {
  return { emailKey: hashToken(pepper, `sign-in-email:${email}`), addressKey: hashToken(pepper, `sign-in-address:${clientAddress}`) };
}

/**
 * Refuses a sign-in when the email or the client address had too many failed sign-ins in the
 * last 15 minutes (10 per email, 30 per address), with Retry-After when the oldest of them
 * leaves the window.
 * @throws DomainError SVC_RATE_LIMITED (details.bucket "sign_in_email" | "sign_in_address", limit, window).
 */
export async function checkSignInThrottle(deps: Pick<CoreDeps, "stores" | "clock">, keys: { emailKey: string; addressKey: string }): Promise<void> {
  const now = deps.clock.now();
  const since = new Date(now.getTime() - PEOPLE_LIMITS.throttleWindowMs);
  const f = await deps.stores.signInThrottle.failuresSince({ ...keys, since });
  const over =
    f.email.count >= PEOPLE_LIMITS.failuresPerEmail ? { bucket: "sign_in_email", limit: PEOPLE_LIMITS.failuresPerEmail, oldest: f.email.oldest }
    : f.address.count >= PEOPLE_LIMITS.failuresPerAddress ? { bucket: "sign_in_address", limit: PEOPLE_LIMITS.failuresPerAddress, oldest: f.address.oldest }
    : null;
  if (over === null) return;
  const retryAfterSeconds = Math.max(1, Math.ceil(((over.oldest?.getTime() ?? now.getTime()) + PEOPLE_LIMITS.throttleWindowMs - now.getTime()) / 1000));
  throw new DomainError("SVC_RATE_LIMITED", "Too many failed sign-ins; try again later.", { bucket: over.bucket, limit: over.limit, window: "PT15M" }, { retryAfterSeconds });
}

/**
 * Signs a person in by email and password (DESIGN §2b). Throttled first (too many failures:
 * 429, nothing checked). The password is checked against the person's hash, or against a dummy
 * hash when there is no such person, so both failures take about the same time and give the same
 * 401. A failure is recorded for the throttle and, when the person exists, audited
 * (`person.sign_in_failed`) in one transaction. A success forgets the email's failures and opens
 * a session with the audit row `person.signed_in`; when the person has MFA on, the session is a
 * pending-MFA one (`mfa_required`) and the sign-in completes at POST /v1/auth/mfa/verify.
 * @throws DomainError SVC_RATE_LIMITED (Retry-After), SVC_UNAUTHENTICATED, SVC_SERVICE_UNAVAILABLE.
 */
export async function signIn(deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids" | "secrets" | "people">, input: { email: string; password: string }, ctx: { origin: RequestOrigin; requestId: string | null }): Promise<SignInResult> {
  const people = requirePeople(deps);
  const email = normalizeEmail(input.email);
  const keys = throttleKeys(deps.secrets.pepper, email, ctx.origin.clientAddress);
  await checkSignInThrottle(deps, keys);
  const person = email.length > 0 && email.length <= 320 ? await deps.stores.people.findByEmail({ email }) : null;
  // Always one argon2 verification, against a dummy hash when there is no such person or password.
  const ok = await people.passwords.verify(person?.passwordHash ?? null, input.password);
  if (!ok || person === null) {
    await deps.tx.run(async (stores) => {
      const now = deps.clock.now();
      await stores.signInThrottle.recordFailure({ id: deps.ids.next(), ...keys, at: now });
      if (person !== null) {
        await stores.audit.append({ entry: personAuditEntry(deps, { workspaceId: person.workspaceId, occurredAt: now, activity: "person.sign_in_failed", subjectId: person.id, actorPersonId: null, requestId: ctx.requestId, details: { reason: person.passwordHash === null ? "no_password" : "wrong_password" } }) });
      }
    });
    throw new DomainError("SVC_UNAUTHENTICATED", SIGN_IN_REFUSED_MESSAGE);
  }
  const mfa = person.mfaEnabledAt !== null;
  return deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    await stores.signInThrottle.clearEmail({ emailKey: keys.emailKey });
    const opened = await openSession(deps, stores, { workspaceId: person.workspaceId, personId: person.id, stage: mfa ? "pending_mfa" : "active", withMfa: false, now, settings: people.settings });
    await stores.audit.append({
      entry: personAuditEntry(deps, { workspaceId: person.workspaceId, occurredAt: now, activity: mfa ? "person.password_verified" : "person.signed_in", subjectId: person.id, actorPersonId: person.id, requestId: ctx.requestId, details: { session_id: opened.session.id, mfa: false } }),
    });
    return { kind: mfa ? "mfa_required" : "signed_in", person, ...opened };
  });
}

/**
 * Signs the session's person out: ends the session (audit row `person.signed_out`). Ending an
 * ended or unknown session changes nothing (sign-out always succeeds).
 */
export async function signOut(deps: Pick<CoreDeps, "tx" | "clock" | "ids">, session: { workspaceId: string; id: string; personId: string }, ctx: { requestId: string | null }): Promise<void> {
  await deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    if (!(await stores.personSessions.end({ workspaceId: session.workspaceId, sessionId: session.id, now }))) return;
    await stores.audit.append({ entry: personAuditEntry(deps, { workspaceId: session.workspaceId, occurredAt: now, activity: "person.signed_out", subjectId: session.personId, actorPersonId: session.personId, requestId: ctx.requestId, details: { session_id: session.id } }) });
  });
}

export { sessionUnauthenticated };
