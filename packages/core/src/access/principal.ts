import type { NewAuditEntry } from "../audit/audit-entry.ts";
import { DomainError } from "../errors.ts";
import type { CredentialPrincipal, PersonPrincipal, Principal } from "./model.ts";

/** True when the caller signed in as a person (a session cookie), not with a credential. */
export function isPersonPrincipal(principal: Principal): principal is PersonPrincipal {
  return principal.kind === "person";
}

/**
 * The credential caller of an operation only AI accounts may call (send, claim, ack, session
 * state writes...). The executor's authorization already refuses a person on those (no such
 * scope); this is the type-level guard behind it.
 * @throws DomainError SVC_SCOPE_INSUFFICIENT for a person's session.
 */
export function credentialCaller(principal: Principal): CredentialPrincipal {
  if (principal.kind === "person") throw new DomainError("SVC_SCOPE_INSUFFICIENT", "This operation is for AI accounts' credentials, not a person's session.", { required: "credential" });
  return principal;
}

/**
 * The id that scopes a caller's idempotency keys and rate-limit bucket: the AI account of a
 * credential, the person of a session.
 */
export function callerKey(principal: Principal): string {
  return principal.kind === "person" ? principal.person.id : principal.account.id;
}

/** The rate-limit bucket of a caller: its credential, or the person behind a session. */
export function rateLimitKey(principal: Principal): string {
  return principal.kind === "person" ? `person:${principal.person.id}` : principal.credential.id;
}

/**
 * The actor columns of an audit row written for `principal` (null: no actor). A person has no
 * AI account or credential: their id goes into the row's details as `actor_person_id` instead
 * (`actorDetails`), so the chain's row shape stays as it is (docs/decisions.md).
 */
export function actorColumns(principal: Principal | null): Pick<NewAuditEntry, "actorAccountId" | "actorCredentialId"> {
  if (principal === null || principal.kind === "person") return { actorAccountId: null, actorCredentialId: null };
  return { actorAccountId: principal.account.id, actorCredentialId: principal.credential.id };
}

/** Details naming a person actor (`actor_person_id`), merged into an audit row's details; empty for a credential. */
export function actorDetails(principal: Principal | null): Record<string, unknown> {
  return principal !== null && principal.kind === "person" ? { actor_person_id: principal.person.id } : {};
}
