import type { AuditLog } from "../ports.ts";
import type { AuditChainFault } from "./verify-audit-chain.ts";
import { verifyAuditChain } from "./verify-audit-chain.ts";

/** Rows read per page while verifying a workspace's chain. */
const VERIFY_PAGE = 1_000;

/** The outcome of verifying a workspace's stored chain. */
export interface WorkspaceChainVerification {
  /** True when every sealed row verifies. */
  verified: boolean;
  /** The last sealed row (the chain head), or null when nothing is sealed yet. */
  head: { seq: number; hash: string; sealedAt: Date | null } | null;
  /** Rows verified good (before the first bad one). */
  checked: number;
  /** The first row that fails, and why. */
  firstBadRow: { id: string; seq: number | null; reason: AuditChainFault } | null;
}

/**
 * Verifies a workspace's sealed audit chain from seq 1, reading it in pages of 1,000 rows
 * (`verifyAuditChain` page by page, each continuing from the previous page's last row), and
 * names the first bad row. Unsealed rows are not part of the chain yet.
 */
export async function verifyWorkspaceChain(audit: AuditLog, workspaceId: string): Promise<WorkspaceChainVerification> {
  let from: { seq: number; hash: string } | undefined;
  let head: WorkspaceChainVerification["head"] = null;
  let checked = 0;
  for (;;) {
    const rows = await audit.readChain({ workspaceId, afterSeq: from?.seq ?? 0, limit: VERIFY_PAGE });
    if (rows.length === 0) break;
    const result = verifyAuditChain(rows, from);
    const last = rows[rows.length - 1];
    if (last !== undefined && last.seq !== null && last.hash !== null) head = { seq: last.seq, hash: last.hash, sealedAt: last.sealedAt };
    if (!result.ok) {
      // Report the head as stored even though the chain breaks below it.
      let tail = rows;
      while (tail.length === VERIFY_PAGE) {
        const lastSeq = tail[tail.length - 1]?.seq ?? 0;
        tail = await audit.readChain({ workspaceId, afterSeq: lastSeq, limit: VERIFY_PAGE });
        const t = tail[tail.length - 1];
        if (t !== undefined && t.seq !== null && t.hash !== null) head = { seq: t.seq, hash: t.hash, sealedAt: t.sealedAt };
      }
      return { verified: false, head, checked: checked + result.checked, firstBadRow: { ...result.row, reason: result.reason } };
    }
    checked += result.checked;
    from = result.head ?? from;
    if (rows.length < VERIFY_PAGE) break;
  }
  return { verified: true, head, checked, firstBadRow: null };
}
