import { auditEntry, type NewAuditEntry } from "../audit/audit-entry.ts";
import type { CoreDeps } from "../deps.ts";
import type { Notice } from "./notice.ts";

/** Who took a step of a notice. */
export type NoticeActor = "notifier" | "operator" | "owner" | "system";

/**
 * An audit row of a notice step in the affected workspace (`notice.*`), to be appended in the
 * step's transaction. Until the notice is disclosed to the workspace the row is
 * operator-significant (withheld from the workspace's own audit view, GET /v1/audit-log); the
 * disclosure row (`notice.disclosed`) then tells the workspace of the receipt and what followed.
 * Details never carry the notifier's contact details or the status token.
 */
export function noticeAuditEntry(deps: Pick<CoreDeps, "ids">, notice: Notice, p: { workspaceId: string; occurredAt: Date; activity: string; by: NoticeActor; details?: Record<string, unknown>; requestId?: string | null; messageId?: string | null; subjectType?: string; subjectId?: string }): NewAuditEntry {
  return auditEntry(deps, null, {
    ...p,
    subjectType: p.subjectType ?? "notice",
    subjectId: p.subjectId ?? notice.id,
    details: { notice_id: notice.id, kind: notice.kind, by: p.by, ...p.details },
    operatorSignificant: notice.disclosedAt === null,
    requestId: p.requestId ?? null,
  });
}
