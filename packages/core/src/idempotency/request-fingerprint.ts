import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { canonicalJson } from "./canonical-json.ts";

/**
 * The fingerprint of a request for idempotency (spec §Conventions 3): SHA-256, hex, over the
 * method, the path and the canonical JSON of the body. Two requests with the same key are "the
 * same request" exactly when their fingerprints are equal; the same key on another endpoint or
 * with another body is a conflict. `path` is the concrete request path (ids filled in), without
 * the query string. An absent body fingerprints like `null`.
 */
export function requestFingerprint(p: { method: string; path: string; body: unknown }): string {
  const text = `${p.method.toUpperCase()}\n${p.path}\n${canonicalJson(p.body ?? null)}`;
  return bytesToHex(sha256(utf8ToBytes(text)));
}
