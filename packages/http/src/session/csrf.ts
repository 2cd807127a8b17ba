import { DomainError } from "@agentq/core";
import type { Context } from "hono";

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** True for methods that change state (everything but GET, HEAD and OPTIONS). */
export function changesState(method: string): boolean {
  return !SAFE_METHODS.has(method.toUpperCase());
}

/**
 * True when the request comes from the service's own origin: its Origin header is the public
 * base URL's origin or names the host the request was sent to; without Origin, Sec-Fetch-Site
 * says same-origin. A request with neither is not known to come from the service's pages.
 */
export function fromOwnOrigin(c: Context, publicOrigin: string): boolean {
  const origin = c.req.header("origin");
  if (origin !== undefined) {
    if (origin === publicOrigin) return true;
    try {
      const host = c.req.header("host");
      return host !== undefined && origin !== "null" && new URL(origin).host === host;
    } catch {
      return false;
    }
  }
  return c.req.header("sec-fetch-site") === "same-origin";
}

/** The refusal of a cookie-authenticated write from another origin. */
export function csrfRejected(): DomainError {
  return new DomainError("SVC_CSRF_REJECTED", "A request authenticated by the session cookie that changes state must come from the service's own origin.");
}

/**
 * The origin check of a cookie-authenticated request (DESIGN §2b): a request that changes state
 * must come from the service's own origin.
 * @throws DomainError SVC_CSRF_REJECTED
 */
export function checkCookieWrite(c: Context, publicOrigin: string): void {
  if (changesState(c.req.method) && !fromOwnOrigin(c, publicOrigin)) throw csrfRejected();
}
