import { authorize } from "../access/authorize.ts";
import type { Principal } from "../access/model.ts";
import type { OperationAuth } from "../operation.ts";

/** Who reads the whole audit log: scope view_audit_log, or any administrative-tier credential (spec §Audit log); every person's session. */
export const AUDIT_READER = { kind: "credential", tier: "operational", scope: "view_audit_log", scopeWaivedForTier: "administrative" } as const satisfies OperationAuth;

/** True when the caller may read the whole workspace's audit log (AUDIT_READER). */
export function readsAuditLog(principal: Principal): boolean {
  try {
    authorize(principal, AUDIT_READER, false);
    return true;
  } catch {
    return false;
  }
}
