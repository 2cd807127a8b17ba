import type { AuditChainLink, AuditLog, Clock } from "../ports.ts";
import { GENESIS_HASH, auditChainHash } from "./audit-hash.ts";

/** Rows sealed per batch (one `writeSeals` call). */
const SEAL_BATCH = 500;

/**
 * Seals the unsealed audit rows of one workspace into its hash chain (appending a link per row;
 * the rows themselves are never updated), in seal order
 * (occurredAt, then id), in batches, holding the workspace's seal lock (a single sealer per
 * workspace). Returns how many rows it sealed, or null when another sealer held the lock.
 * Sends never wait on this: their rows are inserted unsealed (DESIGN §3).
 */
export async function sealAuditChain(deps: { stores: { audit: AuditLog }; clock: Clock }, workspaceId: string, opts?: { maxRows?: number }): Promise<number | null> {
  const maxRows = opts?.maxRows ?? 10_000;
  return deps.stores.audit.withSealLock({ workspaceId }, async (session) => {
    let head = (await session.head()) ?? { seq: 0, hash: GENESIS_HASH };
    let sealed = 0;
    while (sealed < maxRows) {
      const rows = await session.unsealed({ limit: Math.min(SEAL_BATCH, maxRows - sealed) });
      if (rows.length === 0) break;
      const links: AuditChainLink[] = [];
      for (const row of rows) {
        const seq = head.seq + 1;
        const hash = auditChainHash(head.hash, row, seq);
        links.push({ auditId: row.id, seq, prevHash: head.hash, hash });
        head = { seq, hash };
      }
      await session.appendLinks({ links, sealedAt: deps.clock.now() });
      sealed += rows.length;
      if (rows.length < SEAL_BATCH) break;
    }
    return sealed;
  });
}

/**
 * One pass of the background sealer: seals every workspace that has unsealed rows (up to
 * `maxWorkspaces`). Workspaces whose lock another sealer holds are skipped. Returns the number
 * of rows sealed.
 */
export async function sealAuditChains(deps: { stores: { audit: AuditLog }; clock: Clock }, opts?: { maxWorkspaces?: number }): Promise<number> {
  const workspaces = await deps.stores.audit.workspacesWithUnsealed({ limit: opts?.maxWorkspaces ?? 100 });
  let total = 0;
  for (const workspaceId of workspaces) total += (await sealAuditChain(deps, workspaceId)) ?? 0;
  return total;
}
