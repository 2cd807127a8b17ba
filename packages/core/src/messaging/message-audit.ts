import { auditEntry, type NewAuditEntry } from "../audit/audit-entry.ts";
import type { CoreDeps } from "../deps.ts";
import type { OperationContext } from "../operation.ts";

/** Message activities written to the audit log (one row per state change, and each read of a payload by a person or an administrator). */
export type MessageActivity =
  | "message.sent"
  | "message.claimed"
  | "message.acknowledged"
  | "message.nacked"
  | "message.lease_extended"
  | "message.dead_lettered"
  | "message.released"
  | "message.purged"
  | "message.expired"
  | "message.handed_off"
  | "message.held_for_approval"
  | "message.approved"
  | "message.rejected"
  | "message.payload_viewed";

/** The audit row of a message state change made by the calling principal, occurring now. */
export function messageAuditEntry(deps: Pick<CoreDeps, "ids" | "clock">, ctx: OperationContext, p: { messageId: string; activity: MessageActivity; details?: Record<string, unknown>; occurredAt?: Date }): NewAuditEntry {
  return auditEntry(deps, ctx.principal, { workspaceId: ctx.principal.workspace.id, occurredAt: p.occurredAt ?? deps.clock.now(), activity: p.activity, subjectType: "message", subjectId: p.messageId, messageId: p.messageId, details: p.details, requestId: ctx.requestId });
}
