import type { AuditEntry } from "./audit-entry.ts";

/** An audit row on the wire (GET /v1/audit-log, the chain export). Seal fields are null until sealed. */
export interface AuditRowView {
  id: string;
  workspace_id: string;
  seq: number | null;
  occurred_at: string;
  activity: string;
  actor_ai_account_id: string | null;
  actor_credential_id: string | null;
  subject_type: string;
  subject_id: string;
  message_id: string | null;
  details: Record<string, unknown>;
  request_id: string | null;
  prev_hash: string | null;
  hash: string | null;
  sealed_at: string | null;
}

/**
 * A sealed row withheld from the workspace's view (operator-significant): the chain export
 * carries only its link, so the rest of the chain still verifies.
 */
export interface WithheldAuditRowView {
  withheld: true;
  seq: number;
  prev_hash: string;
  hash: string;
  sealed_at: string | null;
}

/** The wire form of an audit row. */
export function auditRowView(row: AuditEntry): AuditRowView {
  return {
    id: row.id,
    workspace_id: row.workspaceId,
    seq: row.seq,
    occurred_at: row.occurredAt.toISOString(),
    activity: row.activity,
    actor_ai_account_id: row.actorAccountId,
    actor_credential_id: row.actorCredentialId,
    subject_type: row.subjectType,
    subject_id: row.subjectId,
    message_id: row.messageId,
    details: row.details,
    request_id: row.requestId,
    prev_hash: row.prevHash,
    hash: row.hash,
    sealed_at: row.sealedAt?.toISOString() ?? null,
  };
}

/** The export form of a sealed row: the full row, or only its link when it is withheld. */
export function exportedAuditRowView(row: AuditEntry): AuditRowView | WithheldAuditRowView {
  if (!row.operatorSignificant) return auditRowView(row);
  return { withheld: true, seq: row.seq ?? 0, prev_hash: row.prevHash ?? "", hash: row.hash ?? "", sealed_at: row.sealedAt?.toISOString() ?? null };
}

/**
 * Reads one line of a chain export back into an audit row (full rows) or a link (withheld
 * rows). Visible rows are never operator-significant (those are the withheld ones).
 * @throws Error when the line is not an exported row.
 */
export function parseExportedAuditRow(value: unknown): { kind: "row"; row: AuditEntry } | { kind: "withheld"; seq: number; prevHash: string; hash: string } {
  if (typeof value !== "object" || value === null) throw new Error("not an object");
  const v = value as Record<string, unknown>;
  const str = (k: string): string => {
    if (typeof v[k] !== "string") throw new Error(`${k} is not a string`);
    return v[k];
  };
  const strOrNull = (k: string): string | null => (v[k] === null || v[k] === undefined ? null : str(k));
  const seq = v["seq"];
  if (typeof seq !== "number" || !Number.isSafeInteger(seq)) throw new Error("seq is not an integer");
  if (v["withheld"] === true) return { kind: "withheld", seq, prevHash: str("prev_hash"), hash: str("hash") };
  const details = v["details"];
  if (typeof details !== "object" || details === null || Array.isArray(details)) throw new Error("details is not an object");
  const sealedAt = strOrNull("sealed_at");
  return {
    kind: "row",
    row: {
      id: str("id"),
      workspaceId: str("workspace_id"),
      occurredAt: new Date(str("occurred_at")),
      activity: str("activity"),
      actorAccountId: strOrNull("actor_ai_account_id"),
      actorCredentialId: strOrNull("actor_credential_id"),
      subjectType: str("subject_type"),
      subjectId: str("subject_id"),
      messageId: strOrNull("message_id"),
      details: details as Record<string, unknown>,
      operatorSignificant: false,
      requestId: strOrNull("request_id"),
      seq,
      prevHash: strOrNull("prev_hash"),
      hash: strOrNull("hash"),
      sealedAt: sealedAt === null ? null : new Date(sealedAt),
    },
  };
}
