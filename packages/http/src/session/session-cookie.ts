import { getCookie } from "hono/cookie";
import type { Context } from "hono";

/** The cookies of a person's session (DESIGN §2b). */
export interface SessionCookies {
  /** Name of the session cookie: `__Host-agentq_session`, or `agentq_session` without Secure. */
  session: string;
  /** Name of the pending-MFA cookie (password checked, second factor awaited). */
  pendingMfa: string;
  /** Name of the cookie holding one OIDC sign-in attempt between the redirect and the callback (ten minutes). */
  oidcAttempt: string;
  /** True when the cookies carry Secure (and the `__Host-` prefix). */
  secure: boolean;
}

const LOOPBACK_HOSTS = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

/**
 * The cookie names and attributes for a service reached at `publicBaseUrl`: HttpOnly,
 * SameSite=Lax, Path=/, and Secure with the `__Host-` prefix unless the URL is plain http on a
 * host other than loopback (a browser would drop a Secure cookie there). Loopback counts as a
 * secure context, so local development keeps the prefix.
 */
export function sessionCookies(publicBaseUrl: string): SessionCookies {
  let secure = true;
  try {
    const url = new URL(publicBaseUrl);
    secure = !(url.protocol === "http:" && !LOOPBACK_HOSTS.has(url.hostname) && !url.hostname.endsWith(".localhost"));
  } catch {
    secure = true;
  }
  const prefix = secure ? "__Host-" : "";
  return { session: `${prefix}agentq_session`, pendingMfa: `${prefix}agentq_mfa`, oidcAttempt: `${prefix}agentq_oidc`, secure };
}

/** A Set-Cookie value setting `name` to `value` for `maxAgeSeconds`. */
export function setCookieHeader(cookies: SessionCookies, name: string, value: string, maxAgeSeconds: number): string {
  return `${name}=${value}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${Math.max(0, Math.floor(maxAgeSeconds))}${cookies.secure ? "; Secure" : ""}`;
}

/** A Set-Cookie value clearing `name`. */
export function clearCookieHeader(cookies: SessionCookies, name: string): string {
  return `${name}=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0${cookies.secure ? "; Secure" : ""}`;
}

/** The value of cookie `name` on the request, or null (absent, empty or unparseable). */
export function readCookie(c: Context, name: string): string | null {
  try {
    const value = getCookie(c, name);
    return value === undefined || value === "" ? null : value;
  } catch {
    return null;
  }
}
