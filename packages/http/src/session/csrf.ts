import { DomainError } from "@agentq/core";
import type { Context } from "hono";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** True for methods that change state (everything but GET, HEAD and OPTIONS). */
export function changesState(method: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase());
}

/**
 * The service's own origin, as a browser serializes it (`scheme://host[:port]`, no default port,
 * no path), from PUBLIC_BASE_URL; an unparsable value is kept as it is (and then matches nothing
 * a browser sends).
 */
export function publicOriginOf(publicBaseUrl: string): string {
  try {
    return new URL(publicBaseUrl).origin;
  } catch {
    return publicBaseUrl;
  }
}

/**
 * True when an Origin header's value is the service's own origin (DESIGN §2c): scheme, host and
 * port all equal PUBLIC_BASE_URL's, compared as the serialized origin a browser sends. The host
 * the request was addressed to plays no part (a Host header is whatever the client wrote), and
 * `null` (an opaque origin) is never the service's.
 */
function isOwnOrigin(origin: string, publicOrigin: string): boolean {
  return origin === publicOrigin;
}

/**
 * True when the request comes from the service's own origin: its Origin header is the public
 * base URL's origin, scheme, host and port alike; without Origin, Sec-Fetch-Site says
 * same-origin. A request with neither is not known to come from the service's pages.
 */
export function fromOwnOrigin(c: Context, publicOrigin: string): boolean {
  const origin = c.req.header("origin");
  if (origin !== undefined) return isOwnOrigin(origin, publicOrigin);
  return c.req.header("sec-fetch-site") === "same-origin";
}

/** The refusal of a request from another origin (a cookie-authenticated write, a sign-in, a request to /mcp). */
export function csrfRejected(): DomainError {
  return new DomainError("SVC_CSRF_REJECTED", "The request must come from the service's own origin.");
}

/**
 * The origin check of a cookie-authenticated request and of every dashboard form post (DESIGN
 * §2b): a request that changes state must come from the service's own origin (Origin, else
 * Sec-Fetch-Site same-origin).
 * @throws DomainError SVC_CSRF_REJECTED
 */
export function checkCookieWrite(c: Context, publicOrigin: string): void {
  if (changesState(c.req.method) && !fromOwnOrigin(c, publicOrigin)) throw csrfRejected();
}

/**
 * The origin check of a request that needs no cookie (sign-in, sign-up, password reset: so
 * another site cannot sign a browser in; /mcp: DNS rebinding, DESIGN §2c): a request whose Origin
 * header is present and not the service's own origin is refused. A request without Origin (a
 * program, not a browser page) passes.
 * @throws DomainError SVC_CSRF_REJECTED
 */
export function refuseForeignOrigin(c: Context, publicOrigin: string): void {
  const origin = c.req.header("origin");
  if (origin !== undefined && !isOwnOrigin(origin, publicOrigin)) throw csrfRejected();
}
