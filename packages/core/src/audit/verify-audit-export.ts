import type { AuditEntry } from "./audit-entry.ts";
import { parseExportedAuditRow } from "./audit-row-view.ts";
import { GENESIS_HASH } from "./audit-hash.ts";
import type { AuditChainFault } from "./verify-audit-chain.ts";
import { verifyAuditChain } from "./verify-audit-chain.ts";

/** The outcome of verifying a chain export. */
export type AuditExportVerification =
  | { ok: true; rows: number; withheld: number; head: { seq: number; hash: string } | null }
  | { ok: false; line: number; seq: number | null; id: string | null; reason: AuditChainFault | "unreadable" };

/**
 * Verifies a chain export (JSON lines in seq order, as GET /v1/audit-log/chain pages them): every
 * visible row's hash is recomputed and linked to its predecessor; a withheld row contributes only
 * its link (its content cannot be checked, its place in the chain can). Names the first bad line.
 * Pure: the caller reads the file.
 */
export function verifyAuditExport(lines: readonly string[]): AuditExportVerification {
  let prev = { seq: 0, hash: GENESIS_HASH };
  let rows = 0;
  let withheld = 0;
  let segment: { row: AuditEntry; line: number }[] = [];
  let segmentFrom = prev;
  const flush = (): AuditExportVerification | null => {
    if (segment.length === 0) return null;
    const r = verifyAuditChain(segment.map((s) => s.row), segmentFrom);
    if (!r.ok) {
      const bad = segment.find((s) => s.row.id === r.row.id) ?? segment[r.checked];
      return { ok: false, line: bad?.line ?? 0, seq: r.row.seq, id: r.row.id, reason: r.reason };
    }
    segment = [];
    return null;
  };
  for (const [i, text] of lines.entries()) {
    if (text.trim() === "") continue;
    const line = i + 1;
    let parsed;
    try {
      parsed = parseExportedAuditRow(JSON.parse(text));
    } catch {
      return { ok: false, line, seq: null, id: null, reason: "unreadable" };
    }
    if (parsed.kind === "withheld") {
      const failed = flush();
      if (failed) return failed;
      if (parsed.seq <= prev.seq) return { ok: false, line, seq: parsed.seq, id: null, reason: "reordered" };
      if (parsed.seq > prev.seq + 1) return { ok: false, line, seq: parsed.seq, id: null, reason: "removed" };
      if (parsed.prevHash !== prev.hash) return { ok: false, line, seq: parsed.seq, id: null, reason: "changed" };
      prev = { seq: parsed.seq, hash: parsed.hash };
      segmentFrom = prev;
      withheld++;
      continue;
    }
    segment.push({ row: parsed.row, line });
    const seq = parsed.row.seq ?? 0;
    prev = { seq, hash: parsed.row.hash ?? "" };
    rows++;
  }
  const failed = flush();
  if (failed) return failed;
  return { ok: true, rows, withheld, head: prev.seq === 0 ? null : prev };
}
