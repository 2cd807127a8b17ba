import { base64Decode, base64Encode } from "../../encoding/base64.ts";
import { HASH_SIZE } from "./tree-hashing.ts";

/**
 * The JSON forms of proofs and receipts (docs/receipts.md). Hashes are padded standard base64
 * of 32 bytes, listed from the leaf (or the old tree) up to the root, as RFC 6962 and tlog order them.
 */

/** Proof that the tree of `tree_size` leaves contains the row at `seq` (leaf `seq - 1`). */
export interface InclusionProofView {
  seq: number;
  leaf_index: number;
  tree_size: number;
  hashes: string[];
}

/** Proof that the tree of `to` leaves extends the tree of `from` leaves. */
export interface ConsistencyProofView {
  from: number;
  to: number;
  hashes: string[];
}

/**
 * A message's receipt: its `message.sent` row as the log's record (`record`: the canonical JSON
 * whose UTF-8 bytes are the leaf's data), the proof that the checkpoint's tree contains it, and
 * the signed checkpoint (a C2SP signed note).
 */
export interface MessageReceiptView {
  message_id: string;
  record: string;
  inclusion: InclusionProofView;
  checkpoint: string;
  /**
   * The log's verifier keys when the receipt was served (the lines of
   * `/.well-known/agentq-log-key`), so the file carries what checks it. Trusting them proves only
   * that the file is consistent with itself: pin the key from elsewhere (docs/receipts.md, trust).
   */
  verifier_keys?: string[];
}

/** Two checkpoints a client holds and the proof that the newer extends the older: what `verifyConsistencyBundle` checks. */
export interface ConsistencyBundleView {
  old_checkpoint: string;
  new_checkpoint: string;
  consistency: ConsistencyProofView;
}

/** The base64 forms of a proof's hashes. */
export function encodeProofHashes(hashes: readonly Uint8Array[]): string[] {
  return hashes.map(base64Encode);
}

/** The hashes of a proof's base64 forms, or null when one is not 32 bytes of base64. */
export function decodeProofHashes(value: unknown): Uint8Array[] | null {
  if (!Array.isArray(value) || value.length > 128) return null;
  const out: Uint8Array[] = [];
  for (const v of value) {
    const h = typeof v === "string" ? base64Decode(v) : null;
    if (h === null || h.length !== HASH_SIZE) return null;
    out.push(h);
  }
  return out;
}
