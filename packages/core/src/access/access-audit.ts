import { auditEntry, type NewAuditEntry } from "../audit/audit-entry.ts";
import type { CoreDeps } from "../deps.ts";
import type { Principal } from "./model.ts";

/** Who caused an access change: a credential's principal, or nobody (bootstrap, operator). */
export interface AccessActor {
  principal: Principal | null;
  requestId: string | null;
}

/**
 * An audit row of the access area (`ai_account.*`, `credential.*`, `workspace.*`), to be
 * appended in the transaction of the change. Details never carry a token or its hash.
 */
export function accessAuditEntry(
  deps: Pick<CoreDeps, "ids">,
  actor: AccessActor,
  p: { workspaceId: string; occurredAt: Date; activity: string; subjectType: "ai_account" | "credential" | "workspace" | "oauth_grant"; subjectId: string; details: Record<string, unknown>; operatorSignificant?: boolean },
): NewAuditEntry {
  return auditEntry(deps, actor.principal, { ...p, requestId: actor.requestId });
}
