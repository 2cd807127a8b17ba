import { hashToken, prefixedToken } from "../access/token.ts";

/** The prefix of a session value, so it is recognised (and refused) in an Authorization header. */
export const SESSION_TOKEN_PREFIX = "agq_se_";
const SESSION_TOKEN = prefixedToken(SESSION_TOKEN_PREFIX);

/** A new session value: the prefix and 256 random bits, base64url. Shown once, in the cookie. */
export const newSessionToken = (): string => SESSION_TOKEN.create();

/** True when `text` has the shape of a session value. */
export const isSessionToken = (text: string): boolean => SESSION_TOKEN.matches(text);

/** The keyed hash a session value is stored under (the credential pepper's HMAC-SHA-256, DESIGN §4). */
export const hashSessionToken = (pepper: Uint8Array, token: string): string => hashToken(pepper, token);
