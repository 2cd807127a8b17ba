import { subTreeNodes, maxPow2, trailingZeros, type TreeNode } from "./tree-coordinates.ts";
import { EMPTY_TREE_HASH, nodeHash, recordHash } from "./tree-hashing.ts";

/**
 * Reads stored hashes of complete subtrees (tlog's `HashReader`, by node rather than by stored
 * index): resolves with one hash per node, in the order asked, or rejects. Adapters read them in
 * one round trip; every caller here asks for at most 2·log2(n) + 2 nodes.
 */
export type HashReader = (nodes: readonly TreeNode[]) => Promise<readonly Uint8Array[]>;

/** Reads `nodes` and checks the reader answered one hash per node. */
export async function readExactly(read: HashReader, nodes: readonly TreeNode[]): Promise<readonly Uint8Array[]> {
  if (nodes.length === 0) return [];
  const hashes = await read(nodes);
  if (hashes.length !== nodes.length) throw new Error(`tlog: read ${nodes.length} hashes, got ${hashes.length}`);
  return hashes;
}

/**
 * The hash of the leaves [lo, hi) from the hashes of `subTreeNodes(lo, hi)` at the front of
 * `hashes` (RFC 6962 §2.1: the left side is a complete subtree, the right side recurses).
 * Returns the hash and the hashes left over.
 */
export function subTreeHash(lo: number, hi: number, hashes: readonly Uint8Array[]): { hash: Uint8Array; rest: readonly Uint8Array[] } {
  let count = 0;
  for (let start = lo; start < hi; count++) start += maxPow2(hi - start + 1).k;
  if (count === 0 || hashes.length < count) throw new Error("tlog: bad index math in subTreeHash");
  let hash = hashes[count - 1] as Uint8Array;
  for (let i = count - 2; i >= 0; i--) hash = nodeHash(hashes[i] as Uint8Array, hash);
  return { hash, rest: hashes.slice(count) };
}

/** The root hash of the tree of the first n leaves, from at most 1 + log2(n) stored hashes read at once. */
export async function treeHash(n: number, read: HashReader): Promise<Uint8Array> {
  if (n === 0) return EMPTY_TREE_HASH;
  const hashes = await readExactly(read, subTreeNodes(0, n));
  return subTreeHash(0, n, hashes).hash;
}

/**
 * The hashes to store when appending leaf n with hash `leafHash` (tlog's
 * `StoredHashesForRecordHash`): the leaf hash, then the hash of each subtree it completes, level
 * by level. Reads the trailingZeros(n + 1) hashes of the complete subtrees to its left.
 */
export async function storedHashesForLeaf(n: number, leafHash: Uint8Array, read: HashReader): Promise<Uint8Array[]> {
  const m = trailingZeros(n + 1);
  const nodes: TreeNode[] = [];
  // The left neighbours, highest level first (sorted by position in the tree).
  for (let i = m - 1; i >= 0; i--) nodes.push({ level: i, index: Math.floor(n / 2 ** i) - 1 });
  const old = await readExactly(read, nodes);
  const stored = [leafHash];
  let h = leafHash;
  for (let i = 0; i < m; i++) {
    h = nodeHash(old[m - 1 - i] as Uint8Array, h);
    stored.push(h);
  }
  return stored;
}

/** The stored hashes of leaf n whose record bytes are `data` (tlog's `StoredHashes`). */
export function storedHashes(n: number, data: Uint8Array, read: HashReader): Promise<Uint8Array[]> {
  return storedHashesForLeaf(n, recordHash(data), read);
}
