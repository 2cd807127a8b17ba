import { utf8ToBytes } from "@noble/hashes/utils.js";
import { parseCheckpoint, type Checkpoint } from "./checkpoint.ts";
import { decodeProofHashes } from "./proof-views.ts";
import { openNote, parseVerifierKey, type NoteVerifier } from "./signed-note.ts";
import { recordHash } from "./tree-hashing.ts";
import { checkRecord, checkTree } from "./tree-proofs.ts";

/**
 * Offline verification of what the service hands out (docs/receipts.md), with the same checks
 * as the Go verifier in tooling/receipts-verifier-go: a message's receipt, and two checkpoints
 * with the consistency proof between them. Pure: the caller reads the files and names the keys
 * it trusts.
 */

/** Why verification failed, one class per way it can fail. */
export type ReceiptFault =
  /** Not the JSON shape of a receipt or bundle. */
  | "unreadable"
  /** A checkpoint is not a signed note with a checkpoint's three lines. */
  | "checkpoint_malformed"
  /** No trusted key signed a checkpoint, or a trusted key's signature does not verify. */
  | "checkpoint_signature"
  /** A checkpoint is not of the expected log (another workspace, another server). */
  | "wrong_origin"
  /** The record is not the `message.sent` row of the named message at the proven position. */
  | "record_mismatch"
  /** The proof does not lead from the record (or the old tree) to the checkpoint's root. */
  | "proof_failed";

/** The outcome of a verification. */
export type ReceiptVerification = { ok: true; origin: string; treeSize: number } | { ok: false; fault: ReceiptFault };

const fail = (fault: ReceiptFault): ReceiptVerification => ({ ok: false, fault });

function verifiersOf(keys: readonly string[]): NoteVerifier[] {
  return keys.map(parseVerifierKey).filter((v): v is NoteVerifier => v !== null);
}

/** A checkpoint note opened with the trusted keys: its tree head and the name of the key that signed it. */
function openCheckpoint(note: unknown, verifiers: readonly NoteVerifier[]): { checkpoint: Checkpoint; keyName: string } | ReceiptFault {
  if (typeof note !== "string") return "unreadable";
  const opened = openNote(note, verifiers);
  if (opened.kind === "malformed") return "checkpoint_malformed";
  if (opened.kind !== "verified") return "checkpoint_signature";
  const checkpoint = parseCheckpoint(opened.text);
  if (checkpoint === null) return "checkpoint_malformed";
  return { checkpoint, keyName: (opened.signatures[0] as { name: string }).name };
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);
const isCount = (v: unknown): v is number => typeof v === "number" && Number.isSafeInteger(v) && v >= 0;

/**
 * Verifies a message's receipt against the trusted verifier keys: the checkpoint is signed by one
 * of them and names the log of the record's workspace (`<key name>/<workspace id>`, and
 * `expectedOrigin` when given); the record is the `message.sent` row of `message_id` at
 * `inclusion.seq`; the inclusion proof leads from its leaf hash to the checkpoint's root.
 */
export function verifyMessageReceipt(receipt: unknown, p: { verifierKeys: readonly string[]; expectedOrigin?: string }): ReceiptVerification {
  if (!isObject(receipt) || !isObject(receipt["inclusion"]) || typeof receipt["record"] !== "string" || typeof receipt["message_id"] !== "string") return fail("unreadable");
  const inclusion = receipt["inclusion"];
  const hashes = decodeProofHashes(inclusion["hashes"]);
  const { seq, leaf_index: leafIndex, tree_size: treeSize } = inclusion;
  if (hashes === null || !isCount(seq) || !isCount(leafIndex) || !isCount(treeSize)) return fail("unreadable");
  const opened = openCheckpoint(receipt["checkpoint"], verifiersOf(p.verifierKeys));
  if (typeof opened === "string") return fail(opened);
  const { checkpoint, keyName } = opened;
  let record: unknown;
  try {
    record = JSON.parse(receipt["record"]);
  } catch {
    return fail("record_mismatch");
  }
  if (!isObject(record) || typeof record["workspace_id"] !== "string") return fail("record_mismatch");
  if (checkpoint.origin !== `${keyName}/${record["workspace_id"]}` || (p.expectedOrigin !== undefined && checkpoint.origin !== p.expectedOrigin)) return fail("wrong_origin");
  if (record["activity"] !== "message.sent" || record["message_id"] !== receipt["message_id"] || record["seq"] !== seq || leafIndex !== seq - 1 || treeSize !== checkpoint.treeSize) return fail("record_mismatch");
  const checked = checkRecord(hashes, checkpoint.treeSize, checkpoint.rootHash, leafIndex, recordHash(utf8ToBytes(receipt["record"])));
  return checked.ok ? { ok: true, origin: checkpoint.origin, treeSize: checkpoint.treeSize } : fail("proof_failed");
}

/**
 * Verifies that the newer of two checkpoints extends the older: both signed by trusted keys, of
 * one log (and `expectedOrigin` when given), the proof's sizes theirs, and the proof leads from
 * the old root to the new one (equal roots and no hashes when the sizes are equal).
 */
export function verifyConsistencyBundle(bundle: unknown, p: { verifierKeys: readonly string[]; expectedOrigin?: string }): ReceiptVerification {
  if (!isObject(bundle) || !isObject(bundle["consistency"])) return fail("unreadable");
  const proof = bundle["consistency"];
  const hashes = decodeProofHashes(proof["hashes"]);
  const { from, to } = proof;
  if (hashes === null || !isCount(from) || !isCount(to)) return fail("unreadable");
  const verifiers = verifiersOf(p.verifierKeys);
  const older = openCheckpoint(bundle["old_checkpoint"], verifiers);
  if (typeof older === "string") return fail(older);
  const newer = openCheckpoint(bundle["new_checkpoint"], verifiers);
  if (typeof newer === "string") return fail(newer);
  const origin = newer.checkpoint.origin;
  if (older.checkpoint.origin !== origin || !origin.startsWith(`${newer.keyName}/`) || (p.expectedOrigin !== undefined && origin !== p.expectedOrigin)) return fail("wrong_origin");
  if (from !== older.checkpoint.treeSize || to !== newer.checkpoint.treeSize) return fail("proof_failed");
  const checked = checkTree(hashes, to, newer.checkpoint.rootHash, from, older.checkpoint.rootHash);
  return checked.ok ? { ok: true, origin, treeSize: to } : fail("proof_failed");
}

/**
 * Verifies a checkpoint note on its own: signed by a trusted key, of that key's logs
 * (`<key name>/...`, and `expectedOrigin` when given).
 */
export function verifyCheckpointNote(note: unknown, p: { verifierKeys: readonly string[]; expectedOrigin?: string }): ReceiptVerification {
  const opened = openCheckpoint(note, verifiersOf(p.verifierKeys));
  if (typeof opened === "string") return fail(opened);
  const { checkpoint, keyName } = opened;
  if (!checkpoint.origin.startsWith(`${keyName}/`) || (p.expectedOrigin !== undefined && checkpoint.origin !== p.expectedOrigin)) return fail("wrong_origin");
  return { ok: true, origin: checkpoint.origin, treeSize: checkpoint.treeSize };
}
