import { maxPow2, subTreeNodes, type TreeNode } from "./tree-coordinates.ts";
import { readExactly, subTreeHash, type HashReader } from "./tree-head.ts";
import { nodeHash, sameHash } from "./tree-hashing.ts";

/**
 * Inclusion and consistency proofs (RFC 6962 §2.1.1 and §2.1.2, RFC 9162 §2.1.3-2.1.4), as
 * golang.org/x/mod/sumdb/tlog builds and checks them, so its `CheckRecord` and `CheckTree`
 * accept what these functions prove. A proof lists hashes from the leaf (or the old tree) up
 * to the root. Building one reads at most 2·log2(t) + 2 stored hashes in one call.
 */

/** Proof that a tree contains a leaf (RFC 6962's "Merkle audit path"). */
export type RecordProof = Uint8Array[];

/** Proof that a tree contains an earlier tree as a prefix (RFC 6962's "Merkle consistency proof"). */
export type TreeProof = Uint8Array[];

/** Why a proof was not built or did not check. */
export type ProofFault = "invalid_inputs" | "proof_failed";

function collectLeafProofNodes(lo: number, hi: number, n: number, need: TreeNode[]): TreeNode[] {
  if (!(lo <= n && n < hi)) throw new Error("tlog: bad math in leafProofNodes");
  if (lo + 1 === hi) return need;
  const { k } = maxPow2(hi - lo);
  if (n < lo + k) {
    collectLeafProofNodes(lo, lo + k, n, need);
    need.push(...subTreeNodes(lo + k, hi));
  } else {
    need.push(...subTreeNodes(lo, lo + k));
    collectLeafProofNodes(lo + k, hi, n, need);
  }
  return need;
}

function leafProof(lo: number, hi: number, n: number, hashes: readonly Uint8Array[]): { proof: RecordProof; rest: readonly Uint8Array[] } {
  if (!(lo <= n && n < hi)) throw new Error("tlog: bad math in leafProof");
  // At the leaf: the verifier knows its hash.
  if (lo + 1 === hi) return { proof: [], rest: hashes };
  const { k } = maxPow2(hi - lo);
  if (n < lo + k) {
    const left = leafProof(lo, lo + k, n, hashes);
    const right = subTreeHash(lo + k, hi, left.rest);
    return { proof: [...left.proof, right.hash], rest: right.rest };
  }
  const left = subTreeHash(lo, lo + k, hashes);
  const right = leafProof(lo + k, hi, n, left.rest);
  return { proof: [...right.proof, left.hash], rest: right.rest };
}

/** The nodes `proveRecord(t, n)` reads (for adapters' tests and plans). */
export function recordProofNodes(t: number, n: number): TreeNode[] {
  return collectLeafProofNodes(0, t, n, []);
}

/**
 * The proof that the tree of size t contains leaf n (tlog's `ProveRecord`).
 * @throws Error when not 0 <= n < t (callers check their inputs first).
 */
export async function proveRecord(t: number, n: number, read: HashReader): Promise<RecordProof> {
  if (!(Number.isSafeInteger(t) && Number.isSafeInteger(n) && n >= 0 && n < t)) throw new Error("tlog: invalid inputs in proveRecord");
  const hashes = await readExactly(read, recordProofNodes(t, n));
  const { proof, rest } = leafProof(0, t, n, hashes);
  if (rest.length !== 0) throw new Error("tlog: bad index math in proveRecord");
  return proof;
}

function runRecordProof(p: readonly Uint8Array[], lo: number, hi: number, n: number, leafHash: Uint8Array): Uint8Array | null {
  if (lo + 1 === hi) return p.length === 0 ? leafHash : null;
  if (p.length === 0) return null;
  const last = p[p.length - 1] as Uint8Array;
  const { k } = maxPow2(hi - lo);
  if (n < lo + k) {
    const th = runRecordProof(p.slice(0, -1), lo, lo + k, n, leafHash);
    return th === null ? null : nodeHash(th, last);
  }
  const th = runRecordProof(p.slice(0, -1), lo + k, hi, n, leafHash);
  return th === null ? null : nodeHash(last, th);
}

/** Checks that `proof` proves the tree of size t with root `treeRoot` has leaf n with hash `leafHash` (tlog's `CheckRecord`). */
export function checkRecord(proof: readonly Uint8Array[], t: number, treeRoot: Uint8Array, n: number, leafHash: Uint8Array): { ok: true } | { ok: false; fault: ProofFault } {
  if (!(Number.isSafeInteger(t) && Number.isSafeInteger(n) && n >= 0 && n < t)) return { ok: false, fault: "invalid_inputs" };
  const th = runRecordProof(proof, 0, t, n, leafHash);
  return th !== null && sameHash(th, treeRoot) ? { ok: true } : { ok: false, fault: "proof_failed" };
}

function collectTreeProofNodes(lo: number, hi: number, n: number, need: TreeNode[]): TreeNode[] {
  if (!(lo < n && n <= hi)) throw new Error("tlog: bad math in treeProofNodes");
  if (n === hi) {
    if (lo !== 0) need.push(...subTreeNodes(lo, hi));
    return need;
  }
  const { k } = maxPow2(hi - lo);
  if (n <= lo + k) {
    collectTreeProofNodes(lo, lo + k, n, need);
    need.push(...subTreeNodes(lo + k, hi));
  } else {
    need.push(...subTreeNodes(lo, lo + k));
    collectTreeProofNodes(lo + k, hi, n, need);
  }
  return need;
}

function treeProof(lo: number, hi: number, n: number, hashes: readonly Uint8Array[]): { proof: TreeProof; rest: readonly Uint8Array[] } {
  if (!(lo < n && n <= hi)) throw new Error("tlog: bad math in treeProof");
  if (n === hi) {
    // The old tree itself: the verifier knows its hash.
    if (lo === 0) return { proof: [], rest: hashes };
    const sub = subTreeHash(lo, hi, hashes);
    return { proof: [sub.hash], rest: sub.rest };
  }
  const { k } = maxPow2(hi - lo);
  if (n <= lo + k) {
    const left = treeProof(lo, lo + k, n, hashes);
    const right = subTreeHash(lo + k, hi, left.rest);
    return { proof: [...left.proof, right.hash], rest: right.rest };
  }
  const left = subTreeHash(lo, lo + k, hashes);
  const right = treeProof(lo + k, hi, n, left.rest);
  return { proof: [...right.proof, left.hash], rest: right.rest };
}

/** The nodes `proveTree(t, n)` reads. */
export function treeProofNodes(t: number, n: number): TreeNode[] {
  return collectTreeProofNodes(0, t, n, []);
}

/**
 * The proof that the tree of size t contains the tree of size n as a prefix (tlog's `ProveTree`).
 * @throws Error when not 1 <= n <= t.
 */
export async function proveTree(t: number, n: number, read: HashReader): Promise<TreeProof> {
  if (!(Number.isSafeInteger(t) && Number.isSafeInteger(n) && n >= 1 && n <= t)) throw new Error("tlog: invalid inputs in proveTree");
  const hashes = await readExactly(read, treeProofNodes(t, n));
  const { proof, rest } = treeProof(0, t, n, hashes);
  if (rest.length !== 0) throw new Error("tlog: bad index math in proveTree");
  return proof;
}

function runTreeProof(p: readonly Uint8Array[], lo: number, hi: number, n: number, old: Uint8Array): { oldHash: Uint8Array; newHash: Uint8Array } | null {
  if (n === hi) {
    if (lo === 0) return p.length === 0 ? { oldHash: old, newHash: old } : null;
    return p.length === 1 ? { oldHash: p[0] as Uint8Array, newHash: p[0] as Uint8Array } : null;
  }
  if (p.length === 0) return null;
  const last = p[p.length - 1] as Uint8Array;
  const { k } = maxPow2(hi - lo);
  if (n <= lo + k) {
    const sub = runTreeProof(p.slice(0, -1), lo, lo + k, n, old);
    return sub === null ? null : { oldHash: sub.oldHash, newHash: nodeHash(sub.newHash, last) };
  }
  const sub = runTreeProof(p.slice(0, -1), lo + k, hi, n, old);
  return sub === null ? null : { oldHash: nodeHash(last, sub.oldHash), newHash: nodeHash(last, sub.newHash) };
}

/**
 * Checks that `proof` proves the tree of size t with root `treeRoot` contains as a prefix the
 * tree of size n with root `oldRoot` (tlog's `CheckTree`).
 */
export function checkTree(proof: readonly Uint8Array[], t: number, treeRoot: Uint8Array, n: number, oldRoot: Uint8Array): { ok: true } | { ok: false; fault: ProofFault } {
  if (!(Number.isSafeInteger(t) && Number.isSafeInteger(n) && n >= 1 && n <= t)) return { ok: false, fault: "invalid_inputs" };
  const run = runTreeProof(proof, 0, t, n, oldRoot);
  return run !== null && sameHash(run.newHash, treeRoot) && sameHash(run.oldHash, oldRoot) ? { ok: true } : { ok: false, fault: "proof_failed" };
}
