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
 * Takes a place for one sign-in, MFA or step-up attempt in the email's and the client address's
 * windows (15 minutes; 10 per email, 30 per address) before anything is checked (DESIGN §2c):
 * one atomic step, so N concurrent guesses spend N places and those past the limit are refused
 * without being checked. Returns the attempt's id: the caller gives the place back when the
 * attempt succeeds (`signInThrottle.releaseAttempt`), and leaves it as a failure otherwise.
 * @throws DomainError SVC_RATE_LIMITED (details.bucket "sign_in_email" | "sign_in_address",
 *   limit, window "PT15M"; Retry-After when the oldest attempt leaves the window).
 */
export async function admitSignInAttempt(deps: Pick<CoreDeps, "stores" | "clock" | "ids">, keys: { emailKey: string; addressKey: string }): Promise<string> {
  const now = deps.clock.now();
  const id = deps.ids.next();
  const since = new Date(now.getTime() - PEOPLE_LIMITS.throttleWindowMs);
  const r = await deps.stores.signInThrottle.admitAttempt({ id, ...keys, at: now, since, emailLimit: PEOPLE_LIMITS.failuresPerEmail, addressLimit: PEOPLE_LIMITS.failuresPerAddress });
  if (r.admitted) return id;
  const over = r.email.count >= PEOPLE_LIMITS.failuresPerEmail ? { bucket: "sign_in_email", limit: PEOPLE_LIMITS.failuresPerEmail, oldest: r.email.oldest } : { bucket: "sign_in_address", limit: PEOPLE_LIMITS.failuresPerAddress, oldest: r.address.oldest };
  const retryAfterSeconds = Math.max(1, Math.ceil(((over.oldest?.getTime() ?? now.getTime()) + PEOPLE_LIMITS.throttleWindowMs - now.getTime()) / 1000));
  throw new DomainError("SVC_RATE_LIMITED", "Too many failed sign-ins; try again later.", { bucket: over.bucket, limit: over.limit, window: "PT15M" }, { retryAfterSeconds });
}

/**
 * Signs a person in by email and password (DESIGN §2b). The attempt first takes its place in the
 * throttle's windows (`admitSignInAttempt`: past the limit, 429 and nothing checked). The password
 * is checked against the person's hash, or against a dummy hash when there is no such person, so
 * both failures take about the same time and give the same 401. A failure keeps its place in the
 * windows and, when the person exists, is audited (`person.sign_in_failed`). A success gives its
 * own place back (earlier failures stay until they leave the window: see docs/decisions.md) and
 * opens a session with the audit row `person.signed_in`; when the person has MFA on, the session
 * is a pending-MFA one (`mfa_required`) and the sign-in completes at POST /v1/auth/mfa/verify.
 * @throws DomainError SVC_RATE_LIMITED (Retry-After), SVC_UNAUTHENTICATED, SVC_SERVICE_UNAVAILABLE.
 */
export async function signIn(deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids" | "secrets" | "people">, input: { email: string; password: string }, ctx: { origin: RequestOrigin; requestId: string | null }): Promise<SignInResult> {
  const people = requirePeople(deps);
  const email = normalizeEmail(input.email);
  const attemptId = await admitSignInAttempt(deps, throttleKeys(deps.secrets.pepper, email, ctx.origin.clientAddress));
  const person = email.length > 0 && email.length <= 320 ? await deps.stores.people.findByEmail({ email }) : null;
  // Always one argon2 verification, against a dummy hash when there is no such person or password.
  const ok = await people.passwords.verify(person?.passwordHash ?? null, input.password);
  if (!ok || person === null) {
    if (person !== null) {
      await deps.tx.run((stores) =>
        stores.audit.append({ entry: personAuditEntry(deps, { workspaceId: person.workspaceId, occurredAt: deps.clock.now(), activity: "person.sign_in_failed", subjectId: person.id, actorPersonId: null, requestId: ctx.requestId, details: { reason: person.passwordHash === null ? "no_password" : "wrong_password" } }) }),
      );
    }
    throw new DomainError("SVC_UNAUTHENTICATED", SIGN_IN_REFUSED_MESSAGE);
  }
  const mfa = person.mfaEnabledAt !== null;
  return deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    await stores.signInThrottle.releaseAttempt({ id: attemptId });
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
