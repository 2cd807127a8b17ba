import type { Person } from "../access/model.ts";
import { constantTimeEqual } from "../access/token.ts";
import { requirePublicBaseUrl, type CoreDeps } from "../deps.ts";
import { DomainError } from "../errors.ts";
import { isMailAddress, type MailMessage } from "../mail/mail-message.ts";
import { HOUR_MS } from "../time/duration.ts";
import { parseEmail } from "./email.ts";
import { checkPassword } from "./password-rules.ts";
import { personAuditEntry } from "./people-audit.ts";
import { passwordResetMail } from "./people-mails.ts";
import { hashPersonToken, isPersonToken, newPersonToken, PERSON_TOKEN_KINDS, PERSON_TOKENS_PER_HOUR, type PersonToken } from "./person-tokens.ts";
import { requirePeople } from "./require-people.ts";

/** What a reset request decided: the mail to send after the answer, or null (no such person, too many requests, an address that cannot be mailed). */
export interface PasswordResetRequested {
  mail: MailMessage | null;
}

/**
 * POST /v1/auth/password-reset (DESIGN §2b). For a person with that email: a single-use token
 * valid one hour, stored as its keyed hash, with the audit row `person.password_reset_requested`
 * in one transaction, and the mail carrying it (sent by the caller after the answer, so the
 * answer and its timing are the same whatever the email). At most three tokens per person per
 * hour: a fourth request writes its audit row (`mailed: false`) and mails nothing. The answer is
 * 202 in every case; the caller never learns which.
 * @throws DomainError SVC_MALFORMED_REQUEST (details.field "email") when it is not an address.
 */
export async function requestPasswordReset(deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids" | "secrets" | "publicBaseUrl">, input: { email: string }, ctx: { requestId: string | null }): Promise<PasswordResetRequested> {
  const email = parseEmail(input.email);
  const person = await deps.stores.people.findByEmail({ email });
  if (person === null) return { mail: null };
  const publicBaseUrl = requirePublicBaseUrl(deps);
  return { mail: await issuePasswordResetLink(deps, person, { requestId: ctx.requestId, activity: "person.password_reset_requested", mailOf: (token) => passwordResetMail({ to: person.email, publicBaseUrl, token }) }) };
}

/**
 * Issues a password-reset token to `person` and composes the mail that carries it, in one
 * transaction with the audit row `activity` (`mailed: true`, the token's id and expiry). Nothing
 * is issued, and the row says `mailed: false` with the reason, when the person had three tokens
 * of the purpose this hour or their address cannot be mailed. Shared by a reset request and by a
 * sign-up for an address that has an account (whose mail offers the reset).
 */
export async function issuePasswordResetLink(
  deps: Pick<CoreDeps, "tx" | "clock" | "ids" | "secrets">,
  person: Person,
  p: { requestId: string | null; activity: string; mailOf: (token: string) => MailMessage },
): Promise<MailMessage | null> {
  return deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const audit = (details: Record<string, unknown>) =>
      stores.audit.append({ entry: personAuditEntry(deps, { workspaceId: person.workspaceId, occurredAt: now, activity: p.activity, subjectId: person.id, actorPersonId: null, requestId: p.requestId, details }) });
    const recent = await stores.personTokens.countIssuedSince({ workspaceId: person.workspaceId, personId: person.id, purpose: "password_reset", since: new Date(now.getTime() - HOUR_MS) });
    if (recent >= PERSON_TOKENS_PER_HOUR) {
      await audit({ mailed: false, reason: "too_many_requests" });
      return null;
    }
    if (!isMailAddress(person.email)) {
      await audit({ mailed: false, reason: "address_not_mailable" });
      return null;
    }
    const token = newPersonToken("password_reset");
    const record: PersonToken = {
      id: deps.ids.next(),
      workspaceId: person.workspaceId,
      personId: person.id,
      purpose: "password_reset",
      tokenHash: hashPersonToken(deps.secrets.pepper, token),
      createdAt: now,
      expiresAt: new Date(now.getTime() + PERSON_TOKEN_KINDS.password_reset.lifetimeMs),
      usedAt: null,
    };
    await stores.personTokens.insert({ token: record });
    await audit({ mailed: true, token_id: record.id, expires_at: record.expiresAt.toISOString() });
    return p.mailOf(token);
  });
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
 * rules refuse leaves the token usable. MFA stays as it was.
 * @throws DomainError SVC_UNAUTHENTICATED (details.field "token"), SVC_MALFORMED_REQUEST
 *   (details.field "password", details.reason), SVC_SERVICE_UNAVAILABLE (no people configuration).
 */
export async function confirmPasswordReset(deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids" | "secrets" | "people">, input: { token: string; password: string }, ctx: { requestId: string | null }): Promise<void> {
  const people = requirePeople(deps);
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
