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
