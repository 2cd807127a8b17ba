import type { NewAuditEntry } from "../audit/audit-entry.ts";
import type { CoreDeps } from "../deps.ts";

/**
 * An audit row of the people area (`person.*`), written in the transaction of the change. The
 * actor is a person (`actor_person_id` in details; the AI account and credential columns are
 * null) or nobody (bootstrap, a failed sign-in). Details never carry a password, a session
 * value, a code or an email.
 */
export function personAuditEntry(
  deps: Pick<CoreDeps, "ids">,
  p: { workspaceId: string; occurredAt: Date; activity: string; subjectType?: "person" | "workspace"; subjectId: string; actorPersonId: string | null; requestId: string | null; details?: Record<string, unknown> },
): NewAuditEntry {
  return {
    id: deps.ids.next(),
    workspaceId: p.workspaceId,
    occurredAt: p.occurredAt,
    activity: p.activity,
    actorAccountId: null,
    actorCredentialId: null,
    subjectType: p.subjectType ?? "person",
    subjectId: p.subjectId,
    messageId: null,
    details: { ...p.details, ...(p.actorPersonId === null ? {} : { actor_person_id: p.actorPersonId }) },
    operatorSignificant: false,
    requestId: p.requestId,
  };
}
