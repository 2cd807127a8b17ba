import { auditEntry, type NewAuditEntry } from "../../audit/audit-entry.ts";
import type { CoreDeps } from "../../deps.ts";
import type { OperationContext } from "../../operation.ts";
import type { Stores } from "../../ports.ts";
import type { CreatedBy, RecordEvent } from "./record-event.ts";
import { credentialCaller } from "../../access/principal.ts";

/** The caller as a record's `created_by` / event actor. */
export function actorOf(ctx: Pick<OperationContext, "principal">): CreatedBy {
  const { account } = credentialCaller(ctx.principal);
  return { aiAccountId: account.id, friendlyName: account.friendlyName };
}

/** A workspace audit row of a session-state write (`project.created`, `decision.recorded`, ...). */
export function sessionStateAuditEntry(deps: Pick<CoreDeps, "ids">, ctx: Pick<OperationContext, "principal" | "requestId">, p: { occurredAt: Date; activity: string; subjectType: string; subjectId: string; details: Record<string, unknown> }): NewAuditEntry {
  return auditEntry(deps, ctx.principal, { ...p, workspaceId: ctx.principal.workspace.id, requestId: ctx.requestId });
}

/**
 * Records one change of a mutable record in the caller's transaction: its event row (history)
 * and the workspace audit row `<subjectType>.<eventType>`.
 */
export async function recordChange(
  deps: Pick<CoreDeps, "ids">,
  stores: Stores,
  ctx: Pick<OperationContext, "principal" | "requestId">,
  p: { projectId: string; subjectType: string; subjectId: string; eventType: string; oldValue: Record<string, unknown> | null; newValue: Record<string, unknown> | null; buildSessionId?: string | null; at: Date },
): Promise<void> {
  const event: RecordEvent = {
    workspaceId: ctx.principal.workspace.id,
    id: deps.ids.next(),
    projectId: p.projectId,
    subjectType: p.subjectType,
    subjectId: p.subjectId,
    eventType: p.eventType,
    actor: actorOf(ctx),
    oldValue: p.oldValue,
    newValue: p.newValue,
    buildSessionId: p.buildSessionId ?? null,
    at: p.at,
  };
  await stores.recordEvents.append({ event });
  await stores.audit.append({
    entry: sessionStateAuditEntry(deps, ctx, { occurredAt: p.at, activity: `${p.subjectType}.${p.eventType}`, subjectType: p.subjectType, subjectId: p.subjectId, details: { project_id: p.projectId, ...(p.newValue ?? {}) } }),
  });
}
