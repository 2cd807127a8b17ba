import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, randomBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import type { NativeCrypto } from "../encoding/native-crypto.ts";
import type { Tier } from "./model.ts";

/**
 * The recognisable prefix of a bearer token of each tier (DESIGN §2), so secret scanners can
 * find leaked tokens and people can tell the two apart at a glance.
 */
export const TOKEN_PREFIXES: Readonly<Record<Tier, string>> = { operational: "agq_op_", administrative: "agq_ad_" };

/** Random bytes behind every token: 256 bits, above the 128-bit floor of DESIGN §2. */
const TOKEN_RANDOM_BYTES = 32;
/** Length of the base64url (unpadded) text of TOKEN_RANDOM_BYTES. */
const TOKEN_RANDOM_CHARS = Math.ceil((TOKEN_RANDOM_BYTES * 8) / 6);
const TOKEN_SHAPE = new RegExp(`^agq_(?:op|ad)_[A-Za-z0-9_-]{${TOKEN_RANDOM_CHARS}}$`);

const BASE64URL = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** Encodes bytes as unpadded base64url (RFC 4648 §5). */
export function toBase64Url(bytes: Uint8Array): string {
  let out = "";
  let i = 0;
  for (; i + 2 < bytes.length; i += 3) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8) | bytes[i + 2]!;
    out += BASE64URL[(n >> 18) & 63]! + BASE64URL[(n >> 12) & 63]! + BASE64URL[(n >> 6) & 63]! + BASE64URL[n & 63]!;
  }
  const rest = bytes.length - i;
  if (rest === 1) {
    const n = bytes[i]! << 16;
    out += BASE64URL[(n >> 18) & 63]! + BASE64URL[(n >> 12) & 63]!;
  } else if (rest === 2) {
    const n = (bytes[i]! << 16) | (bytes[i + 1]! << 8);
    out += BASE64URL[(n >> 18) & 63]! + BASE64URL[(n >> 12) & 63]! + BASE64URL[(n >> 6) & 63]!;
  }
  return out;
}

/**
 * A new token seal: 256 random bits, base64url. The plaintext token is derived from the seal
 * (`tokenFromSeal`), so the stored idempotent response of an issue or rotate keeps only the
 * seal, never the token, and a replay can still hand the same token back (DESIGN §4: tokens are
 * stored only as keyed hashes). Without the server pepper a seal reveals nothing.
 */
export function newTokenSeal(): string {
  return toBase64Url(randomBytes(TOKEN_RANDOM_BYTES));
}

/**
 * A kind of single-use secret of the people's half (a session value, a mailed link's token): its
 * `prefix` followed by a fresh seal (`newTokenSeal`). `create` makes one; `matches` tells whether
 * a text has that shape (the prefix and 43 base64url characters).
 */
export function prefixedToken(prefix: string): { create: () => string; matches: (text: string) => boolean } {
  const shape = new RegExp(`^${prefix}[A-Za-z0-9_-]{43}$`);
  return { create: () => prefix + newTokenSeal(), matches: (text) => shape.test(text) };
}

/**
 * The bearer token of `tier` behind `seal`: the tier's prefix followed by
 * base64url(HMAC-SHA-256(pepper, "agentq-token-seal-v1:" + seal)): 256 bits, unpredictable
 * without the pepper. The input prefix keeps these HMACs apart from token hashes (whose inputs
 * start with "agq_").
 */
export function tokenFromSeal(pepper: Uint8Array, tier: Tier, seal: string): string {
  return TOKEN_PREFIXES[tier] + toBase64Url(hmac(sha256, pepper, utf8ToBytes(`agentq-token-seal-v1:${seal}`)));
}

/** True when `text` has the shape of a token this service issues (prefix, length, alphabet). */
export function isWellFormedToken(text: string): boolean {
  return TOKEN_SHAPE.test(text);
}

/**
 * The keyed hash under which a token is stored and looked up: HMAC-SHA-256 with the server
 * pepper, lowercase hex (DESIGN §4). Without the pepper a leaked table cannot be brute-forced
 * offline. `native` (the runtime's node:crypto) computes the same value faster.
 */
export function hashToken(pepper: Uint8Array, token: string, native?: Pick<NativeCrypto, "hmacSha256Hex">): string {
  if (native !== undefined) return native.hmacSha256Hex(pepper, token);
  return bytesToHex(hmac(sha256, pepper, utf8ToBytes(token)));
}

/**
 * Compares two strings in time that depends only on their lengths, not on where they first
 * differ. Use it for secrets and their hashes.
 */
export function constantTimeEqual(a: string, b: string): boolean {
  const x = utf8ToBytes(a);
  const y = utf8ToBytes(b);
  let diff = x.length ^ y.length;
  const n = Math.max(x.length, y.length);
  for (let i = 0; i < n; i++) diff |= (x[i] ?? 0) ^ (y[i] ?? 0);
  return diff === 0;
}
