import { hmac } from "@noble/hashes/hmac.js";
import { sha256 } from "@noble/hashes/sha2.js";
import { utf8ToBytes } from "@noble/hashes/utils.js";
import { constantTimeEqual } from "../access/token.ts";
import type { ServerSecrets } from "../deps.ts";
import { base64UrlDecode, base64UrlEncode } from "../encoding/base64url.ts";
import { MINUTE_MS } from "../time/duration.ts";
import type { OidcAttempt } from "./oidc-identity.ts";

/** How long a browser has from the redirect to the identity provider until the callback. */
export const OIDC_ATTEMPT_LIFETIME_MS = 10 * MINUTE_MS;

/** One OIDC sign-in attempt as its cookie carries it. */
export interface SealedOidcAttempt {
  attempt: OidcAttempt;
  /** The path to return to after the sign-in (`parseReturnTo`). */
  returnTo: string;
  /** When the attempt started. */
  startedAt: Date;
  /**
   * Set when a signed-in person started the attempt from their settings to link the identity
   * they sign in with at the provider (DESIGN §2c), else null (a sign-in or sign-up).
   */
  linkFor: { workspaceId: string; personId: string } | null;
}

interface Body {
  s: string;
  n: string;
  v: string;
  r: string;
  t: number;
  /** The person to link to: [workspace id, person id]. */
  l?: [string, string];
}

function mac(pepper: Uint8Array, bodyText: string): string {
  return base64UrlEncode(hmac(sha256, pepper, utf8ToBytes(`agentq-oidc-attempt-v1.${bodyText}`)));
}

/**
 * The value of the attempt cookie: base64url JSON of the state, nonce, PKCE verifier, return path,
 * start time and (linking) the person to link to, then `.` and its HMAC-SHA-256 under the server pepper (domain-separated), so
 * the browser carries the attempt and cannot change it. The cookie is HttpOnly and bound to this
 * browser; the verifier only matters together with the code the provider sends to this browser.
 */
export function sealOidcAttempt(secrets: Pick<ServerSecrets, "pepper">, sealed: SealedOidcAttempt): string {
  const body: Body = { s: sealed.attempt.state, n: sealed.attempt.nonce, v: sealed.attempt.codeVerifier, r: sealed.returnTo, t: sealed.startedAt.getTime(), ...(sealed.linkFor === null ? {} : { l: [sealed.linkFor.workspaceId, sealed.linkFor.personId] }) };
  const bodyText = base64UrlEncode(utf8ToBytes(JSON.stringify(body)));
  return `${bodyText}.${mac(secrets.pepper, bodyText)}`;
}

/**
 * The attempt of a cookie value made by `sealOidcAttempt`, or null when it is missing, not ours
 * (malformed or its MAC wrong), or older than OIDC_ATTEMPT_LIFETIME_MS at `now`.
 */
export function openOidcAttempt(secrets: Pick<ServerSecrets, "pepper">, value: string | undefined, now: Date): SealedOidcAttempt | null {
  if (value === undefined || value.length > 4096) return null;
  const dot = value.indexOf(".");
  if (dot <= 0) return null;
  const bodyText = value.slice(0, dot);
  if (!constantTimeEqual(value.slice(dot + 1), mac(secrets.pepper, bodyText))) return null;
  const bytes = base64UrlDecode(bodyText);
  if (bytes === null) return null;
  let body: Partial<Body>;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes)) as Partial<Body>;
  } catch {
    return null;
  }
  if (typeof body.s !== "string" || typeof body.n !== "string" || typeof body.v !== "string" || typeof body.r !== "string" || typeof body.t !== "number") return null;
  const link = body.l;
  if (link !== undefined && !(Array.isArray(link) && link.length === 2 && typeof link[0] === "string" && typeof link[1] === "string")) return null;
  const age = now.getTime() - body.t;
  if (!(age >= -MINUTE_MS && age <= OIDC_ATTEMPT_LIFETIME_MS)) return null;
  return { attempt: { state: body.s, nonce: body.n, codeVerifier: body.v }, returnTo: body.r, startedAt: new Date(body.t), linkFor: link === undefined ? null : { workspaceId: link[0], personId: link[1] } };
}
