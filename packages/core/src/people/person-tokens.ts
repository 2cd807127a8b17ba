import { hashToken, newTokenSeal } from "../access/token.ts";
import { DAY_MS, HOUR_MS } from "../time/duration.ts";

/**
 * What a single-use link of a person is for: a forgotten password (`password_reset`, asked for
 * at POST /v1/auth/password-reset) or a first password after an invitation (`invitation`, from
 * POST /v1/people). Both are spent at POST /v1/auth/password-reset/confirm.
 */
export type PersonTokenPurpose = "password_reset" | "invitation";

/** A single-use token of a person. Only its keyed hash is stored. */
export interface PersonToken {
  id: string;
  workspaceId: string;
  personId: string;
  purpose: PersonTokenPurpose;
  /** HMAC-SHA-256 of the token under the server pepper, hex. */
  tokenHash: string;
  createdAt: Date;
  expiresAt: Date;
  /** When it was spent (or made unusable by a later reset, a removal), else null. */
  usedAt: Date | null;
}

/** Per purpose: the token's recognisable prefix and how long it stays valid (DESIGN §2b). */
export const PERSON_TOKEN_KINDS: Readonly<Record<PersonTokenPurpose, { prefix: string; lifetimeMs: number }>> = {
  password_reset: { prefix: "agq_pr_", lifetimeMs: HOUR_MS },
  invitation: { prefix: "agq_iv_", lifetimeMs: 3 * DAY_MS },
};

/** At most this many tokens of one purpose are issued to one person per hour; more requests mail nothing. */
export const PERSON_TOKENS_PER_HOUR = 3;

const SHAPE = /^agq_(?:pr|iv)_[A-Za-z0-9_-]{43}$/;

/** A new token of `purpose`: its prefix and 256 random bits, base64url. Mailed, never stored. */
export function newPersonToken(purpose: PersonTokenPurpose): string {
  return PERSON_TOKEN_KINDS[purpose].prefix + newTokenSeal();
}

/** True when `text` has the shape of a person token (either purpose). */
export function isPersonToken(text: string): boolean {
  return SHAPE.test(text);
}

/** The keyed hash a person token is stored under. */
export function hashPersonToken(pepper: Uint8Array, token: string): string {
  return hashToken(pepper, token);
}
