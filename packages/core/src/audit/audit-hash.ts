import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { canonicalJson } from "../idempotency/canonical-json.ts";
import type { NewAuditEntry } from "./audit-entry.ts";

/** The `prevHash` of the first row of every workspace's chain: 64 zeros. */
export const GENESIS_HASH = "0".repeat(64);

/**
 * The canonical serialization of an audit row for hashing: canonical JSON (sorted keys) of every
 * recorded field plus its `seq`, timestamps as ISO strings. The seal fields themselves
 * (prevHash, hash, sealedAt) are not part of it.
 */
export function canonicalAuditRow(row: NewAuditEntry, seq: number): string {
  return canonicalJson({
    id: row.id,
    workspace_id: row.workspaceId,
    seq,
    occurred_at: row.occurredAt.toISOString(),
    activity: row.activity,
    actor_account_id: row.actorAccountId,
    actor_credential_id: row.actorCredentialId,
    subject_type: row.subjectType,
    subject_id: row.subjectId,
    message_id: row.messageId,
    details: row.details,
    operator_significant: row.operatorSignificant,
    request_id: row.requestId,
  });
}

/** The chain hash of a row: SHA-256 (hex) of the previous row's hash followed by the canonical row. */
export function auditChainHash(prevHash: string, row: NewAuditEntry, seq: number): string {
  return auditChainHashOfCanonical(prevHash, canonicalAuditRow(row, seq));
}

/** `auditChainHash` from the row's canonical form already computed (the sealer hashes it into the tree too). */
export function auditChainHashOfCanonical(prevHash: string, canonicalRow: string): string {
  return bytesToHex(sha256(utf8ToBytes(prevHash + canonicalRow)));
}
