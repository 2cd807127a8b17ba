/** An audit row to be written in the same transaction as the change it records. */
export interface NewAuditEntry {
  id: string;
  workspaceId: string;
  occurredAt: Date;
  /** Dotted activity name, e.g. `message.sent`, `credential.revoked`. */
  activity: string;
  actorAccountId: string | null;
  actorCredentialId: string | null;
  subjectType: string;
  subjectId: string;
  messageId: string | null;
  details: Record<string, unknown>;
  /** Withheld from the workspace's own audit view (GET /v1/audit-log). */
  operatorSignificant: boolean;
  requestId: string | null;
}

/** A stored audit row; `seq`, `prevHash` and `hash` are set when the sealer links it into the chain. */
export interface AuditEntry extends NewAuditEntry {
  seq: number | null;
  prevHash: string | null;
  hash: string | null;
  sealedAt: Date | null;
}
