import { assertSafeStrings, isDomainError, OAuthError } from "@agentq/core";
import { readRequestText, type BodyLimits } from "@agentq/http";

/** Request bodies of the OAuth endpoints over this size are refused: a registration or token request is a few hundred bytes. */
export const MAX_OAUTH_BODY_BYTES = 64 * 1024;

/** The body rules of the OAuth endpoints: 64 KB, and no Content-Encoding. */
const OAUTH_BODY_LIMITS: BodyLimits = { maxBytes: MAX_OAUTH_BODY_BYTES, maxCompressedBytes: MAX_OAUTH_BODY_BYTES, encodings: "identity" };

/**
 * Reads a request body as UTF-8 text through the edge's one body reader (@agentq/http): at most
 * MAX_OAUTH_BODY_BYTES (refused from Content-Length, and counted as the bytes arrive),
 * uncompressed. The reader's refusals are answered the OAuth way (RFC 6749 §5.2).
 * @throws OAuthError `refusal` (invalid_request or invalid_client_metadata) when it is encoded,
 *   too large or not UTF-8.
 */
export async function readBodyText(request: Request, refusal: "invalid_request" | "invalid_client_metadata"): Promise<string> {
  try {
    return await readRequestText(request, null, OAUTH_BODY_LIMITS);
  } catch (e) {
    if (!isDomainError(e)) throw e;
    throw new OAuthError(refusal, e.message);
  }
}

/**
 * The parameters of an `application/x-www-form-urlencoded` body (RFC 6749 §3.2, Appendix B): each
 * at most once, empty values treated as absent (RFC 6749 §3.1).
 * @throws OAuthError invalid_request (another content type, a repeated parameter); DomainError
 *   SVC_MALFORMED_REQUEST for a parameter with U+0000 or a lone surrogate (DESIGN §2c, the same
 *   check as every other input: details.errors[].path names it).
 */
export async function readFormParams(request: Request): Promise<Record<string, string>> {
  const type = request.headers.get("content-type")?.split(";")[0]?.trim().toLowerCase();
  if (type !== "application/x-www-form-urlencoded") throw new OAuthError("invalid_request", "The body must be application/x-www-form-urlencoded.");
  const params: Record<string, string> = {};
  const seen = new Set<string>();
  for (const [key, value] of new URLSearchParams(await readBodyText(request, "invalid_request"))) {
    if (seen.has(key)) throw new OAuthError("invalid_request", `The parameter ${key} is repeated.`);
    seen.add(key);
    if (value !== "") params[key] = value;
  }
  assertSafeStrings(params);
  return params;
}

/**
 * The client_id of an `Authorization: Basic` header (RFC 6749 §2.3.1: form-urlencoded, then
 * base64; the secret is ignored: every client here is public), or null without one.
 * @throws OAuthError invalid_request (a malformed Basic header).
 */
export function basicClientId(authorization: string | null | undefined): string | null {
  if (authorization === null || authorization === undefined) return null;
  const match = /^Basic +([A-Za-z0-9+/=]+) *$/i.exec(authorization);
  if (match === null) return null;
  let decoded: string;
  try {
    decoded = new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(atob(match[1] ?? ""), (ch) => ch.charCodeAt(0)));
  } catch {
    throw new OAuthError("invalid_request", "The Basic authorization header is malformed.");
  }
  const user = decoded.split(":")[0] ?? "";
  try {
    return decodeURIComponent(user.replace(/\+/g, " "));
  } catch {
    throw new OAuthError("invalid_request", "The Basic authorization header is malformed.");
  }
}
