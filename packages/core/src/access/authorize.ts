import { DomainError } from "../errors.ts";
import type { OperationAuth } from "../operation.ts";
import { authorizePerson } from "../people/person-access.ts";
import type { Principal, Tier } from "./model.ts";

const TIER_RANK: Readonly<Record<Tier, number>> = { operational: 0, administrative: 1 };

/**
 * Checks that the principal may call an operation with the given auth rule.
 * Order: tier first (an operational credential on an administrative route gets
 * SVC_TIER_INSUFFICIENT), then scope (SVC_SCOPE_INSUFFICIENT). Administrative-tier credentials
 * pass operational routes only with the scope the route names, like anyone else, unless the
 * rule waives the scope for their tier (`scopeWaivedForTier`). A person's session follows
 * `authorizePerson` (reads open to every session, writes by role); `mutates` tells a read from
 * a write (default: a write).
 * @throws DomainError SVC_TIER_INSUFFICIENT | SVC_SCOPE_INSUFFICIENT
 */
export function authorize(principal: Principal, auth: OperationAuth, mutates = true): void {
  // A person's operation is authorized by `authorizePersonOperation` (the executor calls it).
  if (auth.kind === "public" || auth.kind === "person") return;
  if (principal.kind === "person") {
    authorizePerson(principal, auth, mutates);
    return;
  }
  if (TIER_RANK[principal.credential.tier] < TIER_RANK[auth.tier]) {
    throw new DomainError("SVC_TIER_INSUFFICIENT", `This operation needs an ${auth.tier} credential.`, { required_tier: auth.tier });
  }
  const waived = auth.scopeWaivedForTier !== undefined && TIER_RANK[principal.credential.tier] >= TIER_RANK[auth.scopeWaivedForTier];
  if (auth.scope !== null && !waived && !principal.credential.scopes.includes(auth.scope)) {
    throw new DomainError("SVC_SCOPE_INSUFFICIENT", `This operation needs scope ${auth.scope}.`, { required_scope: auth.scope });
  }
}
