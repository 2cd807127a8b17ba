import { auditEntry, personDetails, type NewAuditEntry } from "../audit/audit-entry.ts";
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
  const { actorPersonId, details, ...facts } = p;
  return auditEntry(deps, null, { ...facts, subjectType: p.subjectType ?? "person", details: { ...details, ...personDetails(actorPersonId) } });
}
