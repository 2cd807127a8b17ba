import { sha256 } from "@noble/hashes/sha2.js";
import { randomBytes, utf8ToBytes } from "@noble/hashes/utils.js";
import { constantTimeEqual, toBase64Url } from "../access/token.ts";

/** Random bytes behind every code and refresh token: 256 bits. */
const SECRET_BYTES = 32;
/** Characters of the base64url text of SECRET_BYTES. */
const SECRET_CHARS = Math.ceil((SECRET_BYTES * 8) / 6);

/** A new secret with a recognisable prefix: `prefix` + 256 random bits in base64url. */
export function newOAuthSecret(prefix: string): string {
  return prefix + toBase64Url(randomBytes(SECRET_BYTES));
}

/** True when `text` has the shape `newOAuthSecret(prefix)` makes. */
export function isWellFormedOAuthSecret(prefix: string, text: string): boolean {
  return text.length === prefix.length + SECRET_CHARS && text.startsWith(prefix) && /^[A-Za-z0-9_-]+$/.test(text.slice(prefix.length));
}

/** RFC 7636 §4.1: a code verifier is 43 to 128 characters of [A-Za-z0-9-._~]. */
export function isValidCodeVerifier(verifier: string): boolean {
  return /^[A-Za-z0-9\-._~]{43,128}$/.test(verifier);
}

/** RFC 7636 §4.2: an S256 code challenge is base64url without padding of a 32-byte hash: 43 characters. */
export function isValidCodeChallenge(challenge: string): boolean {
  return /^[A-Za-z0-9_-]{43}$/.test(challenge);
}

/** The S256 challenge of a verifier: base64url(SHA-256(ASCII(verifier))) (RFC 7636 §4.2). */
export function s256Challenge(verifier: string): string {
  return toBase64Url(sha256(utf8ToBytes(verifier)));
}

/** True when `verifier` is well formed and its S256 challenge equals `challenge` (constant time). */
export function verifierMatches(verifier: string, challenge: string): boolean {
  return isValidCodeVerifier(verifier) && constantTimeEqual(s256Challenge(verifier), challenge);
}
