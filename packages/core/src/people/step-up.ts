import type { PersonPrincipal, Principal } from "../access/model.ts";
import { workspaceClosedError } from "../closing/closed-refusal.ts";
import { DomainError } from "../errors.ts";

/**
 * The rule in front of every operation that needs a fresh MFA step-up (DESIGN §2b: DELETE
 * /v1/me, DELETE /v1/workspaces/me, a counter-notice): a person's session whose step-up (POST
 * /v1/auth/step-up, or a sign-in completed with MFA) is less than five minutes old. Returns the
 * person's principal.
 * @throws DomainError SVC_TIER_INSUFFICIENT (a credential: people only),
 *   SVC_STEP_UP_REQUIRED (details.reason "mfa_not_enabled" when the person has no MFA, else
 *   "step_up_expired").
 */
export function requireStepUp(principal: Principal, now: Date): PersonPrincipal {
  if (principal.kind !== "person") throw new DomainError("SVC_TIER_INSUFFICIENT", "This operation needs a person's session with a fresh MFA step-up; a credential cannot do it.", { required: "session" });
  if (principal.person.mfaEnabledAt === null) {
    throw new DomainError("SVC_STEP_UP_REQUIRED", "This operation needs a fresh MFA step-up; enable MFA first.", { reason: "mfa_not_enabled" });
  }
  const until = principal.session.stepUpUntil;
  if (until === null || until.getTime() <= now.getTime()) {
    throw new DomainError("SVC_STEP_UP_REQUIRED", "This operation needs a fresh MFA step-up (POST /v1/auth/step-up).", { reason: "step_up_expired" });
  }
  return principal;
}

/**
 * The refusal of a person's session because of their workspace's state, for an operation
 * (by name): a frozen workspace is 403 SVC_FROZEN and a closed one 403 SVC_WORKSPACE_CLOSED,
 * except for the operations a person may still use then (GET /v1/me). Null when allowed.
 */
export function personWorkspaceRefusal(principal: PersonPrincipal, operationName: string): DomainError | null {
  if (PERSON_OPERATIONS_WHEN_INACTIVE.has(operationName)) return null;
  if (principal.workspace.state === "closed") return workspaceClosedError(principal.workspace);
  if (principal.workspace.state === "frozen") return new DomainError("SVC_FROZEN", "This workspace is frozen.", { frozen: "workspace" });
  return null;
}

/** Catalogue operations a person may call while their workspace is frozen or closed. */
export const PERSON_OPERATIONS_WHEN_INACTIVE: Set<string> = new Set(["get_me"]);
