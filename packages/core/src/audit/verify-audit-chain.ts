import type { AuditEntry } from "./audit-entry.ts";
import { GENESIS_HASH, auditChainHash } from "./audit-hash.ts";

/** Why a row fails verification. */
export type AuditChainFault =
  /** The row's content or its link no longer matches its hash. */
  | "changed"
  /** One or more rows before this one are missing (a gap in seq). */
  | "removed"
  /** The row is out of seq order (its seq is not above its predecessor's). */
  | "reordered";

/** The outcome of `verifyAuditChain`. */
export type AuditChainVerification =
  | { ok: true; checked: number; head: { seq: number; hash: string } | null }
  | { ok: false; checked: number; row: { id: string; seq: number | null }; reason: AuditChainFault };

/**
 * Verifies sealed audit rows of one workspace, given in the order read (seq ascending). Pure.
 * `from` is the seq and hash of the row before the first one (omit it to verify from seq 1,
 * whose prevHash must be the genesis hash). Names the first bad row: a gap in seq is `removed`
 * (the missing rows cannot be named, the row after the gap is), a row out of place (its seq not
 * above its predecessor's, or the missing seq appears later in the input) is `reordered`, a hash or link mismatch (or a row that was never sealed) is `changed`.
 * `checked` counts the rows verified good before the first bad one. Removing rows from the very
 * end of the chain is detectable only against a head recorded elsewhere (compare `head`).
 */
export function verifyAuditChain(rows: readonly AuditEntry[], from?: { seq: number; hash: string }): AuditChainVerification {
  let prev = from ?? { seq: 0, hash: GENESIS_HASH };
  let checked = 0;
  for (const [index, row] of rows.entries()) {
    const bad = (reason: AuditChainFault): AuditChainVerification => ({ ok: false, checked, row: { id: row.id, seq: row.seq }, reason });
    if (row.seq === null || row.hash === null || row.prevHash === null) return bad("changed");
    if (row.seq <= prev.seq) return bad("reordered");
    if (row.seq > prev.seq + 1) {
      const expected = prev.seq + 1;
      return bad(rows.slice(index + 1).some((r) => r.seq === expected) ? "reordered" : "removed");
    }
    if (auditChainHash(row.prevHash, row, row.seq) !== row.hash) return bad("changed");
    if (row.prevHash !== prev.hash) return bad("changed");
    prev = { seq: row.seq, hash: row.hash };
    checked++;
  }
  return { ok: true, checked, head: checked === 0 && from === undefined ? null : prev };
}
