import { hashToken, newTokenSeal } from "../access/token.ts";

/** The prefix of a session value, so it is recognised (and refused) in an Authorization header. */
export const SESSION_TOKEN_PREFIX = "agq_se_";
const SESSION_TOKEN_SHAPE = /^agq_se_[A-Za-z0-9_-]{43}$/;

/** A new session value: the prefix and 256 random bits, base64url. Shown once, in the cookie. */
export function newSessionToken(): string {
  return SESSION_TOKEN_PREFIX + newTokenSeal();
}

/** True when `text` has the shape of a session value. */
export function isSessionToken(text: string): boolean {
  return SESSION_TOKEN_SHAPE.test(text);
}

/** The keyed hash a session value is stored under (the credential pepper's HMAC-SHA-256, DESIGN §4). */
export function hashSessionToken(pepper: Uint8Array, token: string): string {
  return hashToken(pepper, token);
}
