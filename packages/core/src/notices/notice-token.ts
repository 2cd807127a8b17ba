import { constantTimeEqual, hashToken, newTokenSeal } from "../access/token.ts";

/** The recognisable prefix of a notice's status token (DESIGN §2b). */
export const NOTICE_TOKEN_PREFIX = "agq_nt_";

/** A new status token: the prefix and 256 random bits (base64url). Shown once; only its keyed hash is stored. */
export function newNoticeToken(): string {
  return NOTICE_TOKEN_PREFIX + newTokenSeal();
}

/** The keyed hash under which a status token is stored. */
export function noticeTokenHash(pepper: Uint8Array, token: string): string {
  return hashToken(pepper, token);
}

/** True when `token` is the notice's status token (compared in constant time). */
export function noticeTokenMatches(pepper: Uint8Array, storedHash: string, token: string): boolean {
  return token.startsWith(NOTICE_TOKEN_PREFIX) && token.length <= 128 && constantTimeEqual(noticeTokenHash(pepper, token), storedHash);
}
