import { utf8ToBytes } from "@noble/hashes/utils.js";
import type { NewAuditEntry } from "../audit-entry.ts";
import { canonicalAuditRow } from "../audit-hash.ts";
import { recordHash } from "./tree-hashing.ts";

/**
 * The record bytes of an audit row in the workspace's log: the UTF-8 of its canonical JSON with
 * its `seq` (`canonicalAuditRow`), the same bytes the hash chain hashes after the previous hash.
 * The row at `seq` is the log's leaf `seq - 1`.
 */
export function auditLeafBytes(row: NewAuditEntry, seq: number): Uint8Array {
  return utf8ToBytes(canonicalAuditRow(row, seq));
}

/** The leaf hash of an audit row: SHA-256(0x00 || auditLeafBytes(row, seq)). */
export function auditLeafHash(row: NewAuditEntry, seq: number): Uint8Array {
  return recordHash(auditLeafBytes(row, seq));
}

/** `auditLeafHash` from the row's canonical form already computed (`canonicalAuditRow(row, seq)`). */
export function auditLeafHashOfCanonical(canonicalRow: string): Uint8Array {
  return recordHash(utf8ToBytes(canonicalRow));
}
