import { DomainError, malformed } from "../../errors.ts";
import type { AuditLog, AuditTree, StoredCheckpoint } from "../../ports.ts";
import { canonicalAuditRow } from "../audit-hash.ts";
import { encodeProofHashes, type ConsistencyProofView, type InclusionProofView, type MessageReceiptView } from "./proof-views.ts";
import type { HashReader } from "./tree-head.ts";
import { proveRecord, proveTree } from "./tree-proofs.ts";

/**
 * What the receipt routes serve (DESIGN §2c Receipts), each from the workspace's latest signed
 * checkpoint and O(log n) stored hashes. Callers decide access (the audit log's); every read is
 * scoped to the workspace.
 */

type TreeDeps = { stores: { auditTree: AuditTree } };

function readerOf(deps: TreeDeps, workspaceId: string): HashReader {
  return (nodes) => deps.stores.auditTree.readHashes({ workspaceId, nodes });
}

/**
 * The workspace's latest signed checkpoint.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND (`details.reason: "no_checkpoint"`) before the
 * sealer has published one (within about a second of the workspace's first audit row).
 */
export async function latestAuditCheckpoint(deps: TreeDeps, p: { workspaceId: string }): Promise<StoredCheckpoint> {
  const checkpoint = await deps.stores.auditTree.latestCheckpoint(p);
  if (checkpoint === null) throw new DomainError("SVC_RESOURCE_NOT_FOUND", "The audit log has no checkpoint yet.", { reason: "no_checkpoint" });
  return checkpoint;
}

const isPositive = (n: number) => Number.isSafeInteger(n) && n >= 1;

/**
 * A size beyond the latest checkpoint: 400 like any other bound of the request (the bound is the
 * latest checkpoint's size, which the client reads first), with `details.reason:
 * "beyond_checkpoint"` and `details.tree_size` telling it apart from a malformed number.
 */
function beyondCheckpoint(field: string, treeSize: number): DomainError {
  return malformed(`${field} is beyond the latest checkpoint (tree size ${treeSize}).`, { field, reason: "beyond_checkpoint", tree_size: treeSize });
}

/**
 * The upper end of a proof's range `low..high` (`high` defaults to the latest checkpoint's size),
 * checked: 1 <= low <= high <= the latest checkpoint's size.
 * @throws DomainError SVC_MALFORMED_REQUEST (`details.field` names the parameter out of range),
 *   SVC_RESOURCE_NOT_FOUND before any checkpoint.
 */
async function checkedRange(deps: TreeDeps, p: { workspaceId: string }, low: { field: string; value: number }, high: { field: string; value: number | undefined }): Promise<number> {
  if (!isPositive(low.value)) throw malformed(`${low.field} must be a positive integer.`, { field: low.field });
  if (high.value !== undefined && (!isPositive(high.value) || high.value < low.value)) throw malformed(`${high.field} must be an integer at least ${low.field}.`, { field: high.field });
  const checkpoint = await latestAuditCheckpoint(deps, p);
  const upper = high.value ?? checkpoint.treeSize;
  if (upper < low.value) throw beyondCheckpoint(low.field, checkpoint.treeSize);
  if (upper > checkpoint.treeSize) throw beyondCheckpoint(high.field, checkpoint.treeSize);
  return upper;
}

/**
 * The proof that the tree of `treeSize` leaves contains the row at `seq`.
 * @throws DomainError SVC_MALFORMED_REQUEST unless 1 <= seq <= treeSize <= the latest
 * checkpoint's size (`details.field` names the parameter); SVC_RESOURCE_NOT_FOUND before any checkpoint.
 */
export async function proveAuditInclusion(deps: TreeDeps, p: { workspaceId: string; seq: number; treeSize?: number }): Promise<InclusionProofView> {
  const treeSize = await checkedRange(deps, p, { field: "seq", value: p.seq }, { field: "tree_size", value: p.treeSize });
  const hashes = await proveRecord(treeSize, p.seq - 1, readerOf(deps, p.workspaceId));
  return { seq: p.seq, leaf_index: p.seq - 1, tree_size: treeSize, hashes: encodeProofHashes(hashes) };
}

/**
 * The proof that the tree of `to` leaves extends the tree of `from` leaves.
 * @throws DomainError SVC_MALFORMED_REQUEST unless 1 <= from <= to <= the latest checkpoint's size;
 * SVC_RESOURCE_NOT_FOUND before any checkpoint.
 */
export async function proveAuditConsistency(deps: TreeDeps, p: { workspaceId: string; from: number; to?: number }): Promise<ConsistencyProofView> {
  const to = await checkedRange(deps, p, { field: "from", value: p.from }, { field: "to", value: p.to });
  const hashes = await proveTree(to, p.from, readerOf(deps, p.workspaceId));
  return { from: p.from, to, hashes: encodeProofHashes(hashes) };
}

/**
 * A message's receipt: its `message.sent` row as the log's record, proven against the latest
 * checkpoint. The caller has checked the message is the caller's to see.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND when the workspace has no `message.sent` row for
 * the message; SVC_RESOURCE_CONFLICT (`details.reason: "not_sealed_yet"`) while the row is not
 * yet in a signed checkpoint (the sealer runs every second).
 */
export async function messageReceipt(deps: { stores: { audit: AuditLog; auditTree: AuditTree } }, p: { workspaceId: string; messageId: string }): Promise<MessageReceiptView> {
  const rows = await deps.stores.audit.timeline(p);
  const sent = rows.find((r) => r.activity === "message.sent");
  if (sent === undefined) throw new DomainError("SVC_RESOURCE_NOT_FOUND", "The message has no send in the audit log.", { resource: "message" });
  const checkpoint = await deps.stores.auditTree.latestCheckpoint(p);
  if (sent.seq === null || checkpoint === null || sent.seq > checkpoint.treeSize) {
    throw new DomainError("SVC_RESOURCE_CONFLICT", "The message's send is not in a signed checkpoint yet; retry in a few seconds.", { reason: "not_sealed_yet" });
  }
  const hashes = await proveRecord(checkpoint.treeSize, sent.seq - 1, readerOf(deps, p.workspaceId));
  return {
    message_id: p.messageId,
    record: canonicalAuditRow(sent, sent.seq),
    inclusion: { seq: sent.seq, leaf_index: sent.seq - 1, tree_size: checkpoint.treeSize, hashes: encodeProofHashes(hashes) },
    checkpoint: checkpoint.note,
  };
}
