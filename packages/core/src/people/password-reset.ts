import type { Person } from "../access/model.ts";
import { constantTimeEqual } from "../access/token.ts";
import { requirePublicBaseUrl, type CoreDeps } from "../deps.ts";
import { DomainError } from "../errors.ts";
import { isMailAddress, type MailMessage } from "../mail/mail-message.ts";
import { sendMail } from "../mail/send-mail.ts";
import { countAnonymousRequest, limitAnonymousRequest } from "../rate-limits/anonymous-limits.ts";
import { parseEmail } from "./email.ts";
import { checkPassword } from "./password-rules.ts";
import { issuePersonToken } from "./issue-person-token.ts";
import { personAuditEntry } from "./people-audit.ts";
import { passwordResetMail } from "./people-mails.ts";
import { hashPersonToken, isPersonToken } from "./person-tokens.ts";
import type { RequestOrigin } from "./people-settings.ts";
import { requirePeople } from "./require-people.ts";

/** What a password-reset request's work did (for the log and the tests; never shown to the caller). */
export type PasswordResetOutcome = "mailed" | "no_account" | "too_many_for_email" | "address_not_mailable";

/** A password-reset request accepted: its work, which the edge runs after answering 202. */
export interface PasswordResetRequested {
  /**
   * Does the request's work: the lookup, the email's mail budget, the token, the mail and the
   * audit row (`sendPasswordReset`). Rejects when the mail cannot be handed over (the token is
   * then spent) or the database fails; the edge logs it.
   */
  work: () => Promise<PasswordResetOutcome>;
}

/**
 * POST /v1/auth/password-reset (DESIGN §2b, §2c): counts the request against the client address's
 * `password_reset` limit (ANONYMOUS_LIMITS) and checks the email's form, then returns the work
 * without doing it: the edge answers 202 at once and runs the work after the answer, so nothing
 * in the answer or its timing depends on whether the email has an account.
 * @throws DomainError SVC_RATE_LIMITED (details.bucket "password_reset", Retry-After),
 *   SVC_MALFORMED_REQUEST (details.field "email") when it is not an address.
 */
export async function requestPasswordReset(deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids" | "secrets" | "publicBaseUrl" | "mailer">, input: { email: string }, ctx: { origin: RequestOrigin; requestId: string | null }): Promise<PasswordResetRequested> {
  await limitAnonymousRequest(deps, "password_reset", ctx.origin.clientAddress);
  const email = parseEmail(input.email);
  return { work: () => sendPasswordReset(deps, { email }, { requestId: ctx.requestId }) };
}

/**
 * The work of a password-reset request, run after the answer: for a person with that email, the
 * link (`issuePasswordResetLink`, audit row `person.password_reset_requested`); for an email
 * without an account, nothing.
 * @throws DomainError SVC_SERVICE_UNAVAILABLE (mail transport), or a database failure.
 */
export async function sendPasswordReset(deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids" | "secrets" | "publicBaseUrl" | "mailer">, input: { email: string }, ctx: { requestId: string | null }): Promise<PasswordResetOutcome> {
  const person = await deps.stores.people.findByEmail({ email: input.email });
  if (person === null) return "no_account";
  const publicBaseUrl = requirePublicBaseUrl(deps);
  return issuePasswordResetLink(deps, person, { requestId: ctx.requestId, activity: "person.password_reset_requested", mailOf: (token) => passwordResetMail({ to: person.email, publicBaseUrl, token }) });
}

/**
 * Mails `person` a single-use password-reset link (DESIGN §2c), work done after an answer. First
 * the email's mail budget (ANONYMOUS_LIMITS.password_reset_email: 3 an hour per email, whoever
 * asks and whichever route asks): past it, nothing more. Then, for a mailable address: a token
 * valid one hour (only its keyed hash stored), the mail `mailOf(token)`, and, once the mail is
 * handed over, the audit row `activity` (`mailed: true`, the token's id and expiry): a request
 * writes its audit row only when a mail goes out, so anonymous requests cannot flood the owner's
 * audit chain. When the mail cannot be handed over, the token is spent (nobody holds it) and
 * the failure rethrown. Shared by a reset request (`person.password_reset_requested`) and by a
 * sign-up for an address that has an account (`person.sign_up_attempted`, whose mail offers the
 * reset), so both draw on the one budget.
 * @throws DomainError SVC_SERVICE_UNAVAILABLE (mail transport), or a database failure.
 */
export async function issuePasswordResetLink(
  deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids" | "secrets" | "mailer">,
  person: Person,
  p: { requestId: string | null; activity: string; mailOf: (token: string) => MailMessage },
): Promise<Exclude<PasswordResetOutcome, "no_account">> {
  const budget = await countAnonymousRequest(deps, "password_reset_email", person.email);
  if (!budget.allowed) return "too_many_for_email";
  if (!isMailAddress(person.email)) return "address_not_mailable";
  const now = deps.clock.now();
  const { token, record } = await issuePersonToken(deps, deps.stores, person, "password_reset", now);
  try {
    await sendMail(deps, p.mailOf(token));
  } catch (error) {
    // Nobody holds this token: spend it, so no unseen link stays usable.
    await deps.stores.personTokens.spend({ tokenHash: record.tokenHash, now: deps.clock.now() });
    throw error;
  }
  await deps.tx.run((stores) =>
    stores.audit.append({
      entry: personAuditEntry(deps, { workspaceId: person.workspaceId, occurredAt: deps.clock.now(), activity: p.activity, subjectId: person.id, actorPersonId: null, requestId: p.requestId, details: { mailed: true, token_id: record.id, expires_at: record.expiresAt.toISOString() } }),
    }),
  );
  return "mailed";
}

/** The one refusal of a token that cannot be used: unknown, malformed, used, expired, or its person gone. */
function tokenRefused(): DomainError {
  return new DomainError("SVC_UNAUTHENTICATED", "The token is unknown, already used or expired; ask for a new link.", { field: "token" });
}

/**
 * POST /v1/auth/password-reset/confirm (DESIGN §2b): spends a password-reset or invitation token
 * and sets the person's password (the same rules as sign-up). In one transaction: the token
 * spent by one conditional write (of two concurrent confirmations one wins), the new hash, every
 * session of the person ended, every other unused token of the person spent, and the audit row
 * (`person.password_reset`, or `person.invitation_accepted` for an invitation). A password the
 * rules refuse leaves the token usable. MFA stays as it was. Counted first against the client
 * address's `password_reset_confirm` limit (ANONYMOUS_LIMITS).
 * @throws DomainError SVC_RATE_LIMITED, SVC_UNAUTHENTICATED (details.field "token"), SVC_MALFORMED_REQUEST
 *   (details.field "password", details.reason), SVC_SERVICE_UNAVAILABLE (no people configuration).
 */
export async function confirmPasswordReset(deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids" | "secrets" | "people">, input: { token: string; password: string }, ctx: { origin: RequestOrigin; requestId: string | null }): Promise<void> {
  const people = requirePeople(deps);
  await limitAnonymousRequest(deps, "password_reset_confirm", ctx.origin.clientAddress);
  if (!isPersonToken(input.token)) throw tokenRefused();
  const tokenHash = hashPersonToken(deps.secrets.pepper, input.token);
  const found = await deps.stores.personTokens.findByHash({ tokenHash });
  if (found === null || !constantTimeEqual(found.tokenHash, tokenHash) || found.usedAt !== null || found.expiresAt.getTime() <= deps.clock.now().getTime()) throw tokenRefused();
  const person = await deps.stores.people.findById({ workspaceId: found.workspaceId, personId: found.personId });
  if (person === null) throw tokenRefused();
  checkPassword(input.password, person.email);
  const passwordHash = await people.passwords.hash(input.password);
  await deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const spent = await stores.personTokens.spend({ tokenHash, now });
    if (spent.kind !== "spent") throw tokenRefused();
    const updated = await stores.people.setPasswordHash({ workspaceId: person.workspaceId, personId: person.id, passwordHash });
    if (updated === null) throw tokenRefused();
    const ended = await stores.personSessions.endAllOfPerson({ workspaceId: person.workspaceId, personId: person.id, now, onlyWithoutMfa: false });
    await stores.personTokens.spendAllOfPerson({ workspaceId: person.workspaceId, personId: person.id, now });
    await stores.audit.append({
      entry: personAuditEntry(deps, {
        workspaceId: person.workspaceId,
        occurredAt: now,
        activity: spent.token.purpose === "invitation" ? "person.invitation_accepted" : "person.password_reset",
        subjectId: person.id,
        actorPersonId: person.id,
        requestId: ctx.requestId,
        details: { token_id: spent.token.id, sessions_ended: ended.length },
      }),
    });
  });
}
