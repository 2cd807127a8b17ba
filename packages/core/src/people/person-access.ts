import { ADMINISTRATIVE_SCOPES, type PersonPrincipal, type Principal, type Role, type Scope, type Tier } from "../access/model.ts";
import { DomainError } from "../errors.ts";
import type { OperationAuth } from "../operation.ts";
import { personWorkspaceRefusal, requireStepUp } from "./step-up.ts";

/** What a person's session may do, by role (DESIGN §2b). */
export interface PersonAccess {
  /** The tier the session acts with on writes; null for a viewer (reads only). */
  tier: Tier | null;
  /** The scopes the session holds on writes. */
  scopes: readonly Scope[];
}

/** Scopes of an owner's or admin's session: every administrative scope plus view_audit_log. */
export const ADMINISTERING_SCOPES: readonly Scope[] = [...ADMINISTRATIVE_SCOPES, "view_audit_log"];

/** True for the roles that administer the workspace (owner, admin). */
export function administers(role: Role): boolean {
  return role === "owner" || role === "admin";
}

/**
 * The access of a role: an owner's or admin's session acts with the administrative tier and
 * every administrative scope plus view_audit_log; a viewer's reads only.
 */
export function personAccess(role: Role): PersonAccess {
  return administers(role) ? { tier: "administrative", scopes: ADMINISTERING_SCOPES } : { tier: null, scopes: [] };
}

/**
 * Checks that a person's session may call an operation (DESIGN §2b). Reads (operations that do
 * not change state) are open to every session of the workspace, whatever scope they name for
 * credentials. A write by a viewer is 403 SVC_TIER_INSUFFICIENT ("a human session that does not
 * administer the workspace"); an owner's or admin's write passes the tier and scope check of a
 * credential holding `personAccess(role)`: administrative operations pass, operations for AI
 * accounts (send, claim, session-state writes: scopes no session holds) are 403
 * SVC_SCOPE_INSUFFICIENT.
 * @throws DomainError SVC_TIER_INSUFFICIENT | SVC_SCOPE_INSUFFICIENT
 */
export function authorizePerson(principal: PersonPrincipal, auth: OperationAuth, mutates: boolean): void {
  if (auth.kind === "public" || auth.kind === "person" || !mutates) return;
  const access = personAccess(principal.person.role);
  if (access.tier === null) {
    throw new DomainError("SVC_TIER_INSUFFICIENT", "A viewer's session reads only; this operation changes the workspace.", { role: principal.person.role });
  }
  if (auth.tier === "administrative" && access.tier !== "administrative") {
    throw new DomainError("SVC_TIER_INSUFFICIENT", `This operation needs an ${auth.tier} caller.`, { required_tier: auth.tier });
  }
  const waived = auth.scopeWaivedForTier !== undefined && access.tier === "administrative";
  if (auth.scope !== null && !waived && !access.scopes.includes(auth.scope)) {
    throw new DomainError("SVC_SCOPE_INSUFFICIENT", `This operation needs scope ${auth.scope}, which a person's session does not hold.`, { required_scope: auth.scope });
  }
}

/**
 * The rule of an operation for people (`auth.kind` "person"), in the order the people's use
 * cases check it: a person's session (a credential is 403 SVC_TIER_INSUFFICIENT, details
 * `{ required: "session" }`), with a fresh step-up when `stepUp` (`requireStepUp`), of one of
 * `roles` (else SVC_TIER_INSUFFICIENT, details `{ role }`), in a workspace neither frozen nor
 * closed unless `closedWorkspaceAllowed`. Returns the person's principal.
 * @throws DomainError SVC_TIER_INSUFFICIENT, SVC_STEP_UP_REQUIRED, SVC_WORKSPACE_CLOSED, SVC_FROZEN.
 */
export function authorizePersonOperation(principal: Principal, auth: Extract<OperationAuth, { kind: "person" }>, operationName: string, now: Date): PersonPrincipal {
  if (principal.kind !== "person") throw new DomainError("SVC_TIER_INSUFFICIENT", "This operation needs a person's session; a credential cannot do it.", { required: "session" });
  if (auth.stepUp === true) requireStepUp(principal, now);
  if (!auth.roles.includes(principal.person.role)) throw new DomainError("SVC_TIER_INSUFFICIENT", `This operation needs a session of the role ${auth.roles.join(" or ")}.`, { role: principal.person.role });
  if (auth.closedWorkspaceAllowed !== true) {
    const refusal = personWorkspaceRefusal(principal, operationName);
    if (refusal !== null) throw refusal;
  }
  return principal;
}
