import type { Principal } from "../access/model.ts";
import { auditEntry, type NewAuditEntry } from "../audit/audit-entry.ts";
import type { CoreDeps } from "../deps.ts";

/**
 * An audit row of the webhook area (`webhook.created`, `.updated`, `.signing_key_rotated`,
 * `.deleted`, `.delivery_exhausted`). Details never carry a signing key or its seal.
 */
export function webhookAuditEntry(
  deps: Pick<CoreDeps, "ids">,
  actor: { principal: Principal | null; requestId: string | null },
  p: { workspaceId: string; occurredAt: Date; activity: string; webhookId: string; messageId?: string | null; details: Record<string, unknown> },
): NewAuditEntry {
  const { webhookId, ...facts } = p;
  return auditEntry(deps, actor.principal, { ...facts, subjectType: "webhook", subjectId: webhookId, requestId: actor.requestId });
}
