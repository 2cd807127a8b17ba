import type { AuditChainLink, AuditLog, AuditSealSession, Clock } from "../ports.ts";
import { GENESIS_HASH, auditChainHashOfCanonical, canonicalAuditRow } from "./audit-hash.ts";
import { auditLeafHash, auditLeafHashOfCanonical } from "./transparency-log/audit-leaf.ts";
import { formatCheckpoint, logOrigin } from "./transparency-log/checkpoint.ts";
import { auditLogKeys } from "./transparency-log/log-key.ts";
import { signNote } from "./transparency-log/signed-note.ts";
import { TreeFrontier } from "./transparency-log/tree-frontier.ts";
import { requirePublicBaseUrl, type ServerSecrets } from "../deps.ts";
import { verifyAuditChain } from "./verify-audit-chain.ts";

/** Rows sealed per batch (one `appendLinks` and one `appendTreeHashes` call). */
const SEAL_BATCH = 500;

/** What the sealer needs: the audit log, the clock, and the log's key (from the server secret and the public base URL). */
export interface SealDeps {
  stores: { audit: AuditLog };
  clock: Clock;
  secrets: Pick<ServerSecrets, "logSeed" | "native">;
  publicBaseUrl?: string;
  previousLogKeys?: readonly string[];
}

/**
 * The frontier each workspace's tree had when its last seal committed, with the chain head it was
 * level with, per audit log (at most FRONTIERS_KEPT workspaces, the oldest entry out first). A
 * seal whose start finds the same head and a tree of the same size reuses it instead of reading
 * O(log n) stored hashes: the head's hash commits to every row up to it, and so to every leaf.
 */
const FRONTIERS_KEPT = 10_000;
const frontiers = new WeakMap<AuditLog, Map<string, { headHash: string; tree: TreeFrontier }>>();

function keptFrontier(audit: AuditLog, workspaceId: string, head: { seq: number; hash: string }, treeSize: number): TreeFrontier | null {
  const kept = frontiers.get(audit)?.get(workspaceId);
  return kept !== undefined && kept.headHash === head.hash && kept.tree.size === treeSize && treeSize === head.seq ? kept.tree.copy() : null;
}

function keepFrontier(audit: AuditLog, workspaceId: string, head: { seq: number; hash: string }, tree: TreeFrontier): void {
  let byWorkspace = frontiers.get(audit);
  if (byWorkspace === undefined) {
    byWorkspace = new Map();
    frontiers.set(audit, byWorkspace);
  }
  byWorkspace.delete(workspaceId);
  if (tree.size !== head.seq) return;
  byWorkspace.set(workspaceId, { headHash: head.hash, tree: tree.copy() });
  if (byWorkspace.size > FRONTIERS_KEPT) byWorkspace.delete(byWorkspace.keys().next().value as string);
}

/**
 * Seals the unsealed audit rows of one workspace into its hash chain (appending a link per row;
 * the rows themselves are never updated), in seal order (occurredAt, then id), in batches,
 * holding the workspace's seal lock (a single sealer per workspace), and appends the same rows,
 * in seq order, as leaves of the workspace's Merkle tree (DESIGN §2c Receipts): the tree's right
 * edge is read once (O(log n) stored hashes; none when the last seal's frontier is still level
 * with the chain), each leaf then costs O(1) hashes on average. When the tree grew, it publishes
 * a checkpoint signed with the log's key, in the same transaction. A batch's writes (links, tree
 * hashes and, with the last batch, the checkpoint) go out together (one round trip).
 * A chain sealed before the tree existed is first caught up (up to `maxRows` leaves a call,
 * each row checked against its chain link; the tree stops before a row that fails).
 * Returns how many rows it sealed, or null when another sealer held the lock.
 * Sends never wait on this: their rows are inserted unsealed (DESIGN §3).
 */
export async function sealAuditChain(deps: SealDeps, workspaceId: string, opts?: { maxRows?: number }): Promise<number | null> {
  const maxRows = opts?.maxRows ?? 10_000;
  const audit = deps.stores.audit;
  const done = await audit.withSealLock({ workspaceId }, async (session) => {
    let head = (await session.head()) ?? { seq: 0, hash: GENESIS_HASH };
    const treeSize = await session.treeSize();
    const tree = keptFrontier(audit, workspaceId, head, treeSize) ?? (await TreeFrontier.load(treeSize, (nodes) => session.readTreeHashes({ nodes })));
    const grownFrom = tree.size;
    if (tree.size < head.seq && (await catchUpTree(session, tree, head.seq, maxRows)) !== "continues") await session.treeCaughtUp();
    let sealed = 0;
    let published = false;
    while (sealed < maxRows) {
      const rows = await session.unsealed({ limit: Math.min(SEAL_BATCH, maxRows - sealed) });
      if (rows.length === 0) break;
      // The tree takes the new rows too when it is level with the chain (else a later catch-up reads them).
      const firstLeaf = tree.size === head.seq ? tree.size : null;
      const links: AuditChainLink[] = [];
      const leaves: Uint8Array[][] = [];
      for (const row of rows) {
        const seq = head.seq + 1;
        // One canonical form for both: the chain hashes it after the previous hash, the tree as a leaf.
        const canonical = canonicalAuditRow(row, seq);
        const hash = auditChainHashOfCanonical(head.hash, canonical);
        links.push({ auditId: row.id, seq, prevHash: head.hash, hash });
        if (firstLeaf !== null) leaves.push(tree.append(auditLeafHashOfCanonical(canonical)));
        head = { seq, hash };
      }
      sealed += rows.length;
      const last = rows.length < SEAL_BATCH || sealed >= maxRows;
      const writes = [session.appendLinks({ links, sealedAt: deps.clock.now() })];
      if (firstLeaf !== null) writes.push(session.appendTreeHashes({ firstLeaf, hashes: leaves }));
      if (last && tree.size > grownFrom) {
        writes.push(publishCheckpoint(deps, session, workspaceId, tree));
        published = true;
      }
      await Promise.all(writes);
      if (last) break;
    }
    if (tree.size > grownFrom && !published) await publishCheckpoint(deps, session, workspaceId, tree);
    return { sealed, head, tree };
  });
  if (done === null) return null;
  // Kept once the seal's writes went through (withSealLock returned); a later seal checks it against the head it reads.
  keepFrontier(audit, workspaceId, done.head, done.tree);
  return done.sealed;
}

/**
 * Appends to the tree the linked rows it lacks, from seq `tree.size + 1`, at most `limit`, each
 * verified against the chain (`verifyAuditChain`, anchored at the link of the tree's last leaf).
 * `caught_up` when level with the chain, `stuck` when a row is missing or fails its link (the
 * tree stays before it), `continues` when the limit stopped it.
 */
async function catchUpTree(session: AuditSealSession, tree: TreeFrontier, chainSize: number, limit: number): Promise<"caught_up" | "stuck" | "continues"> {
  let from: { seq: number; hash: string } | undefined;
  if (tree.size > 0) {
    const [anchor] = await session.linkedRows({ afterSeq: tree.size - 1, limit: 1 });
    if (anchor?.seq !== tree.size || anchor.hash === null) return "stuck";
    from = { seq: anchor.seq, hash: anchor.hash };
  }
  let added = 0;
  while (tree.size < chainSize) {
    if (added >= limit) return "continues";
    const rows = await session.linkedRows({ afterSeq: tree.size, limit: Math.min(SEAL_BATCH, limit - added) });
    const verified = verifyAuditChain(rows, from);
    const good = verified.ok ? rows : rows.slice(0, verified.checked);
    const firstLeaf = tree.size;
    const hashes = good.map((row) => tree.append(auditLeafHash(row, row.seq as number)));
    if (hashes.length > 0) await session.appendTreeHashes({ firstLeaf, hashes });
    added += hashes.length;
    const last = good.at(-1);
    if (last !== undefined) from = { seq: last.seq as number, hash: last.hash as string };
    if (!verified.ok || rows.length === 0) return "stuck";
  }
  return "caught_up";
}

/** Signs the tree's head as the workspace log's checkpoint and publishes it. */
async function publishCheckpoint(deps: SealDeps, session: AuditSealSession, workspaceId: string, tree: TreeFrontier): Promise<void> {
  const { signer } = auditLogKeys(deps);
  const rootHash = tree.root();
  const text = formatCheckpoint({ origin: logOrigin(requirePublicBaseUrl(deps), workspaceId), treeSize: tree.size, rootHash });
  await session.publishCheckpoint({ checkpoint: { treeSize: tree.size, rootHash, note: signNote(text, [signer]), signedAt: deps.clock.now() } });
}

/**
 * One pass of the background sealer: seals every workspace that has unsealed rows or a tree to
 * catch up (up to `maxWorkspaces`). Workspaces whose lock another sealer holds are skipped.
 * Returns the number of rows sealed.
 */
export async function sealAuditChains(deps: SealDeps, opts?: { maxWorkspaces?: number }): Promise<number> {
  const workspaces = await deps.stores.audit.workspacesToSeal({ limit: opts?.maxWorkspaces ?? 100 });
  let total = 0;
  for (const workspaceId of workspaces) total += (await sealAuditChain(deps, workspaceId)) ?? 0;
  return total;
}
