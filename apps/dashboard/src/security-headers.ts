import type { MiddlewareHandler } from "hono";

/**
 * The dashboard's Content-Security-Policy: scripts and styles only from this origin's files
 * (no inline script, no inline style, no eval), images from this origin or data: (the MFA QR
 * code), requests only to this origin, forms only to this origin, never framed.
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "object-src 'none'",
].join("; ");

/**
 * The CSP of the OAuth consent page: the dashboard's, with form-action also allowing the
 * client's redirect URI (its origin, or its private-use scheme such as `cursor:`), since the
 * consent form is answered with a 303 there and browsers apply form-action to redirects.
 */
export function consentCsp(redirectUri: string): string {
  const url = new URL(redirectUri);
  // The URL parser leaves only a scheme of [a-z0-9+.-] and a normalised host: nothing that could end the directive.
  const target = url.protocol === "http:" || url.protocol === "https:" ? url.origin : url.protocol;
  return DASHBOARD_CSP.replace("form-action 'self'", `form-action 'self' ${target}`);
}

/**
 * Sets the security headers on every dashboard response: the CSP above, the legacy framing and
 * sniffing guards, no referrer to other origins, a separate browsing context group. Pages are
 * per person and some show a secret once, so HTML is never stored by any cache (`no-store`);
 * hashed static files set their own caching.
 */
export function securityHeaders(): MiddlewareHandler {
  return async (c, next) => {
    await next();
    const h = c.res.headers;
    // A page may widen its own form-action (the consent page); every other directive stays.
    if (!h.has("Content-Security-Policy")) h.set("Content-Security-Policy", DASHBOARD_CSP);
    h.set("X-Frame-Options", "DENY");
    h.set("X-Content-Type-Options", "nosniff");
    h.set("Referrer-Policy", "same-origin");
    h.set("Cross-Origin-Opener-Policy", "same-origin");
    h.set("Cross-Origin-Resource-Policy", "same-origin");
    if (!h.has("Cache-Control")) h.set("Cache-Control", "no-store");
  };
}
