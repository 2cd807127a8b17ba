import { hashToken, prefixedToken } from "../access/token.ts";
import { DAY_MS } from "../time/duration.ts";

/**
 * A sign-up waiting for its email to be proven (DESIGN §2c "Sign-up proves the email"): what
 * POST /v1/auth/sign-up asked for, kept until the mailed link is used or expires. It belongs to
 * no workspace (none exists yet) and does not reserve its address: two pending sign-ups of one
 * address may both exist, an invitation or another sign-up of that address is never refused because of it,
 * and the first one verified wins. Only the keyed hash of its token and the argon2id hash of
 * its password are stored.
 */
export interface PendingSignUp {
  id: string;
  /** HMAC-SHA-256 of the mailed token under the server pepper, hex (unique). */
  tokenHash: string;
  /** The normalized email the link was mailed to. */
  email: string;
  /** The password's argon2id hash (PHC string), made when the sign-up was asked for. */
  passwordHash: string;
  workspaceName: string;
  displayName: string | null;
  createdAt: Date;
  /** The link stops working at this instant (24 hours after createdAt). */
  expiresAt: Date;
}

/** The recognisable prefix of an email-verification token (`agq_ev_...`). */
export const SIGN_UP_TOKEN_PREFIX = "agq_ev_";

/** How long a sign-up's mailed link works (DESIGN §2c: 24 hours). */
export const SIGN_UP_LINK_LIFETIME_MS = DAY_MS;

/** At most this many sign-up links are mailed to one address per hour; further requests answer the same 202 and mail nothing. */
export const SIGN_UP_MAILS_PER_HOUR = 3;

const SIGN_UP_TOKEN = prefixedToken(SIGN_UP_TOKEN_PREFIX);

/** A new email-verification token: its prefix and 256 random bits, base64url. Mailed, never stored. */
export const newSignUpToken = (): string => SIGN_UP_TOKEN.create();

/** True when `text` has the shape of an email-verification token. */
export const isSignUpToken = (text: string): boolean => SIGN_UP_TOKEN.matches(text);

/** The keyed hash an email-verification token is stored under. */
export const hashSignUpToken = (pepper: Uint8Array, token: string): string => hashToken(pepper, token);
