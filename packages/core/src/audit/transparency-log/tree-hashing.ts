import { sha256 } from "@noble/hashes/sha2.js";

/** Size in bytes of every hash of the log (SHA-256). */
export const HASH_SIZE = 32;

/** The root hash of the empty tree (RFC 6962 §2.1): SHA-256 of the empty string. */
export const EMPTY_TREE_HASH: Uint8Array = sha256(new Uint8Array(0));

/** The leaf hash of a record (RFC 6962 §2.1): SHA-256(0x00 || data). */
export function recordHash(data: Uint8Array): Uint8Array {
  const buf = new Uint8Array(1 + data.length);
  buf[0] = 0x00;
  buf.set(data, 1);
  return sha256(buf);
}

/** The hash of an interior node (RFC 6962 §2.1): SHA-256(0x01 || left || right). */
export function nodeHash(left: Uint8Array, right: Uint8Array): Uint8Array {
  const buf = new Uint8Array(1 + 2 * HASH_SIZE);
  buf[0] = 0x01;
  buf.set(left, 1);
  buf.set(right, 1 + HASH_SIZE);
  return sha256(buf);
}

/** True when two hashes are the same bytes (hashes are public: no constant time needed). */
export function sameHash(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
