import type { Principal } from "../access/model.ts";
import type { NewAuditEntry } from "../audit/audit-entry.ts";
import type { CoreDeps } from "../deps.ts";
import { actorColumns, actorDetails } from "../access/principal.ts";

/**
 * An audit row of the webhook area (`webhook.created`, `.updated`, `.signing_key_rotated`,
 * `.deleted`, `.delivery_exhausted`). Details never carry a signing key or its seal.
 */
export function webhookAuditEntry(
  deps: Pick<CoreDeps, "ids">,
  actor: { principal: Principal | null; requestId: string | null },
  p: { workspaceId: string; occurredAt: Date; activity: string; webhookId: string; messageId?: string | null; details: Record<string, unknown> },
): NewAuditEntry {
  return {
    id: deps.ids.next(),
    workspaceId: p.workspaceId,
    occurredAt: p.occurredAt,
    activity: p.activity,
    ...actorColumns(actor.principal),
    subjectType: "webhook",
    subjectId: p.webhookId,
    messageId: p.messageId ?? null,
    details: { ...p.details, ...actorDetails(actor.principal) },
    operatorSignificant: false,
    requestId: actor.requestId,
  };
}
