import { subTreeNodes, trailingZeros } from "./tree-coordinates.ts";
import { readExactly, subTreeHash, type HashReader } from "./tree-head.ts";
import { EMPTY_TREE_HASH, nodeHash } from "./tree-hashing.ts";

/**
 * The right edge of a growing tree: the hashes of the complete subtrees that make up its `size`
 * leaves (`subTreeNodes(0, size)`, largest first, at most 1 + log2(size)). It is all the sealer
 * needs to append leaves and to compute the root, so a sealing batch reads O(log n) stored
 * hashes once and then works in memory. Not safe for concurrent use (the sealer holds the
 * workspace's seal lock).
 */
export class TreeFrontier {
  private constructor(
    private leaves: number,
    private readonly edge: Uint8Array[],
  ) {}

  /** The frontier of the empty tree. */
  static empty(): TreeFrontier {
    return new TreeFrontier(0, []);
  }

  /** The frontier of the stored tree of `size` leaves, read in one call. */
  static async load(size: number, read: HashReader): Promise<TreeFrontier> {
    return new TreeFrontier(size, [...(await readExactly(read, subTreeNodes(0, size)))]);
  }

  /** A frontier of its own with the same leaves (the hashes are never changed, so they are shared). */
  copy(): TreeFrontier {
    return new TreeFrontier(this.leaves, [...this.edge]);
  }

  /** How many leaves the tree has. */
  get size(): number {
    return this.leaves;
  }

  /**
   * Appends leaf `size` with hash `leafHash` and returns the hashes to store with it: the leaf
   * hash, then the hash of each subtree it completes, level by level (tlog's `StoredHashes`).
   */
  append(leafHash: Uint8Array): Uint8Array[] {
    const completes = trailingZeros(this.leaves + 1);
    const stored = [leafHash];
    let h = leafHash;
    for (let i = 0; i < completes; i++) {
      h = nodeHash(this.edge.pop() as Uint8Array, h);
      stored.push(h);
    }
    this.edge.push(h);
    this.leaves++;
    return stored;
  }

  /** The root hash of the tree as it now is (RFC 6962 §2.1). */
  root(): Uint8Array {
    return this.leaves === 0 ? EMPTY_TREE_HASH : subTreeHash(0, this.leaves, this.edge).hash;
  }
}
