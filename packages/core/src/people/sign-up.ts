import type { Person, Workspace } from "../access/model.ts";
import { requirePublicBaseUrl, type CoreDeps } from "../deps.ts";
import { DomainError, malformed } from "../errors.ts";
import { isMailAddress } from "../mail/mail-message.ts";
import { sendMail } from "../mail/send-mail.ts";
import { limitAnonymousRequest } from "../rate-limits/anonymous-limits.ts";
import { HOUR_MS } from "../time/duration.ts";
import { parseEmail } from "./email.ts";
import { issuePasswordResetLink, type PasswordResetOutcome } from "./password-reset.ts";
import { checkPassword } from "./password-rules.ts";
import { signUpRegisteredMail, signUpVerificationMail } from "./people-mails.ts";
import { hashSignUpToken, newSignUpToken, SIGN_UP_LINK_LIFETIME_MS, SIGN_UP_MAILS_PER_HOUR } from "./pending-sign-up.ts";
import type { PeopleSettings, RequestOrigin } from "./people-settings.ts";
import type { OpenedSession } from "./sessions.ts";
import { requirePeople } from "./require-people.ts";

/** POST /v1/auth/sign-up's body. */
export interface SignUpInput {
  email: string;
  password: string;
  workspace_name: string;
  display_name?: string;
}

/** What a verified sign-up created: the owner, the workspace and the owner's first session. */
export interface SignUpResult extends OpenedSession {
  person: Person;
  workspace: Workspace;
}

/**
 * What a sign-up request's work did (for the log and the tests; never shown to the caller): a
 * new address's verification link mailed, or not past SIGN_UP_MAILS_PER_HOUR; for an address
 * with an account, what its password-reset link did (`issuePasswordResetLink`).
 */
export type SignUpOutcome = "verification_mailed" | "too_many_verifications" | `registered_${Exclude<PasswordResetOutcome, "no_account">}`;

/** A sign-up request accepted: its work, which the edge runs after answering 202. */
export interface SignUpRequested {
  /**
   * Does the request's work: the lookup of the address, then the pending sign-up and its mail,
   * or the mail of an address with an account. Rejects when a mail cannot be handed over (its
   * link then stops working) or the database fails; the edge logs it.
   */
  work: () => Promise<SignUpOutcome>;
}

/** The plan of a workspace made by sign-up (DESIGN §2b). */
export const SIGN_UP_PLAN = "free";

/** A trimmed display name of 1 to 200 characters, or null when absent. */
export function parseDisplayName(value: string | undefined): string | null {
  if (value === undefined) return null;
  const name = value.trim();
  if (name.length === 0 || name.length > 200) throw malformed("display_name must be 1 to 200 characters.", { field: "display_name" });
  return name;
}

/**
 * Refuses a sign-up (by password, by a verification link or through OIDC) that the operator's
 * settings do not allow: sign-up closed (SVC_SIGNUP=closed) or the request's country blocked.
 * @throws DomainError SVC_TIER_INSUFFICIENT (details.reason "signup_closed"), SVC_GEOFENCE_BLOCKED.
 */
export function refuseSignUpFrom(settings: PeopleSettings, origin: RequestOrigin): void {
  if (settings.signup === "closed") throw new DomainError("SVC_TIER_INSUFFICIENT", "Sign-up is closed on this service; ask an owner for an invitation.", { reason: "signup_closed" });
  if (origin.country !== null && settings.blockedCountries.includes(origin.country)) throw new DomainError("SVC_GEOFENCE_BLOCKED", "Sign-up is not offered in your country.");
}

/**
 * POST /v1/auth/sign-up (DESIGN §2c "Sign-up proves the email"). Checked first, before anything
 * is written, and the same for every address: a mail port configured, sign-up open, the country
 * not blocked, the client address's `sign_up` limit (ANONYMOUS_LIMITS: counted before any of
 * the body's work), the fields, the password rules; then the password is hashed (argon2id; the
 * plaintext is never stored), whatever the address. It returns the work without doing it: the
 * edge answers 202 `{verification: "sent"}` at once and runs the work after the answer
 * (`SignUpRequested.work`), so nothing in the answer or its timing depends on the address.
 *
 * - An address without an account: a pending sign-up (the password's hash, the workspace name,
 *   a single-use token valid 24 hours stored as its keyed hash) and the mail with the link
 *   `/verify-email#token=agq_ev_...`. Nothing else exists until POST /v1/auth/verify-email; the
 *   pending sign-up does not reserve the address (others of it may be pending, an invitation
 *   may take it; the first verified wins). At most SIGN_UP_MAILS_PER_HOUR per address per hour (checked, then written: two
 *   requests at the same instant may both pass); further requests mail nothing. When the mail
 *   cannot be handed over, the pending sign-up is taken back (nobody holds its link).
 * - An address with an account: nothing is created; the mail says the address has an account,
 *   with a single-use password-reset link (`issuePasswordResetLink`: the email's budget of three
 *   reset mails an hour, shared with password resets), and, once that mail is handed over, the
 *   audit row `person.sign_up_attempted` in that person's workspace.
 * @throws DomainError SVC_TIER_INSUFFICIENT (sign-up closed), SVC_GEOFENCE_BLOCKED,
 *   SVC_RATE_LIMITED (details.bucket "sign_up", Retry-After), SVC_MALFORMED_REQUEST
 *   (details.field), SVC_SERVICE_UNAVAILABLE (no people configuration, or no mail port: a server
 *   without one cannot sign anybody up).
 */
export async function requestSignUp(deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids" | "secrets" | "people" | "publicBaseUrl" | "mailer">, input: SignUpInput, ctx: { origin: RequestOrigin; requestId: string | null }): Promise<SignUpRequested> {
  const people = requirePeople(deps);
  // Without a mail port no link could ever arrive: say so rather than answer 202 for nothing.
  if (deps.mailer === undefined) throw new DomainError("SVC_SERVICE_UNAVAILABLE", "This server has no mail transport configured, so it cannot send the sign-up link.");
  refuseSignUpFrom(people.settings, ctx.origin);
  await limitAnonymousRequest(deps, "sign_up", ctx.origin.clientAddress);
  const email = parseEmail(input.email);
  // The link must reach the address: one that cannot be mailed is refused for what it is.
  if (!isMailAddress(email)) throw malformed("The email address cannot receive mail.", { field: "email" });
  const workspaceName = input.workspace_name.trim();
  if (workspaceName.length === 0 || workspaceName.length > 200) throw malformed("workspace_name must be 1 to 200 characters.", { field: "workspace_name" });
  const displayName = parseDisplayName(input.display_name);
  checkPassword(input.password, email);
  const passwordHash = await people.passwords.hash(input.password);
  return { work: () => sendSignUpMail(deps, { email, passwordHash, workspaceName, displayName }, { requestId: ctx.requestId }) };
}

/** The work of a sign-up request, run after its answer (see `requestSignUp`). */
async function sendSignUpMail(
  deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids" | "secrets" | "publicBaseUrl" | "mailer">,
  p: { email: string; passwordHash: string; workspaceName: string; displayName: string | null },
  ctx: { requestId: string | null },
): Promise<SignUpOutcome> {
  const publicBaseUrl = requirePublicBaseUrl(deps);
  const registered = await deps.stores.people.findByEmail({ email: p.email });
  if (registered !== null) {
    const outcome = await issuePasswordResetLink(deps, registered, { requestId: ctx.requestId, activity: "person.sign_up_attempted", mailOf: (token) => signUpRegisteredMail({ to: registered.email, publicBaseUrl, resetToken: token }) });
    return `registered_${outcome}`;
  }
  const now = deps.clock.now();
  if ((await deps.stores.pendingSignUps.countSince({ email: p.email, since: new Date(now.getTime() - HOUR_MS) })) >= SIGN_UP_MAILS_PER_HOUR) return "too_many_verifications";
  const token = newSignUpToken();
  const tokenHash = hashSignUpToken(deps.secrets.pepper, token);
  await deps.stores.pendingSignUps.insert({
    signUp: { id: deps.ids.next(), tokenHash, email: p.email, passwordHash: p.passwordHash, workspaceName: p.workspaceName, displayName: p.displayName, createdAt: now, expiresAt: new Date(now.getTime() + SIGN_UP_LINK_LIFETIME_MS) },
  });
  try {
    await sendMail(deps, signUpVerificationMail({ to: p.email, publicBaseUrl, token }));
  } catch (error) {
    // Nobody holds this link: take the pending sign-up back, so no unseen link stays usable.
    await deps.stores.pendingSignUps.take({ tokenHash, now: deps.clock.now() });
    throw error;
  }
  return "verification_mailed";
}
