/**
 * Coordinates in the log's Merkle tree, as golang.org/x/mod/sumdb/tlog names them. Arithmetic
 * uses plain numbers without bitwise operators, so it is exact for trees up to 2^52 leaves.
 */

/** A complete subtree: the hash of leaves [index·2^level, (index+1)·2^level). Level 0 is a leaf. */
export interface TreeNode {
  level: number;
  index: number;
}

/** k, the largest power of 2 smaller than n (n >= 2), and level = log2(k). */
export function maxPow2(n: number): { k: number; level: number } {
  let level = 0;
  while (2 ** (level + 1) < n) level++;
  return { k: 2 ** level, level };
}

/** How many times 2 divides n (n >= 1). */
export function trailingZeros(n: number): number {
  let count = 0;
  let x = n;
  while (x > 0 && x % 2 === 0) {
    x /= 2;
    count++;
  }
  return count;
}

/**
 * The complete subtrees that make up the leaves [lo, hi), largest first (RFC 6962 §2.1's split,
 * repeated on the right side): at most 1 + log2(hi - lo) nodes. `lo` must be a multiple of the
 * first subtree's size, as it is for every range the tree and proof functions ask about.
 */
export function subTreeNodes(lo: number, hi: number): TreeNode[] {
  const nodes: TreeNode[] = [];
  let start = lo;
  while (start < hi) {
    const { k, level } = maxPow2(hi - start + 1);
    if (start % k !== 0) throw new Error("tlog: bad math in subTreeNodes");
    nodes.push({ level, index: start / k });
    start += k;
  }
  return nodes;
}

/**
 * Where a node's hash is stored: with leaf `leafIndex` (the last leaf of its subtree, whose
 * appending completed it), at `position` = its level among the hashes stored for that leaf.
 * Appending leaf n stores its own hash, then the hash of every subtree it completes, level by
 * level: the hashes tlog's `StoredHashes(n)` returns, in that order.
 */
export function storedWithLeaf(node: TreeNode): { leafIndex: number; position: number } {
  return { leafIndex: (node.index + 1) * 2 ** node.level - 1, position: node.level };
}

/**
 * tlog's dense stored hash index of a node (Crosby and Wallach §3.3): the position of its hash
 * when every leaf's stored hashes are written one after another.
 */
export function storedHashIndex(level: number, n: number): number {
  let m = n;
  for (let l = level; l > 0; l--) m = 2 * m + 1;
  let i = 0;
  for (; m > 0; m = Math.floor(m / 2)) i += m;
  return i + level;
}

/** The inverse of `storedHashIndex`: the node whose hash is at stored index `index`. */
export function splitStoredHashIndex(index: number): TreeNode {
  let n = Math.floor(index / 2);
  let indexN = storedHashIndex(0, n);
  if (indexN > index) throw new Error("tlog: bad math in splitStoredHashIndex");
  for (;;) {
    // Each leaf n adds 1 + trailingZeros(n + 1) hashes.
    const x = indexN + 1 + trailingZeros(n + 1);
    if (x > index) break;
    n++;
    indexN = x;
  }
  const level = index - indexN;
  return { level, index: Math.floor(n / 2 ** level) };
}

/** How many hashes a tree of n leaves stores (tlog's `StoredHashCount`). */
export function storedHashCount(n: number): number {
  if (n === 0) return 0;
  let count = storedHashIndex(0, n - 1) + 1;
  for (let i = n - 1; i % 2 === 1; i = (i - 1) / 2) count++;
  return count;
}
