import type { SessionIntent } from "@agentq/core";
import { clearCookieHeader, setCookieHeader, type SessionCookies } from "./session-cookie.ts";

/**
 * The Set-Cookie values that carry out a handler's session intent (the one place the edges turn
 * sessions into cookies): `start` sets the stage's cookie (the session's, or the pending-MFA
 * one) for its lifetime and clears the other; `end` clears the session cookie, and the
 * pending-MFA cookie too unless `keepPendingMfa`; `oidc_attempt` sets the OIDC attempt's cookie.
 */
export function sessionIntentCookies(cookies: SessionCookies, intent: SessionIntent): string[] {
  if (intent.kind === "oidc_attempt") return [setCookieHeader(cookies, cookies.oidcAttempt, intent.value, intent.maxAgeSeconds)];
  if (intent.kind === "start") {
    const [set, clear] = intent.stage === "active" ? [cookies.session, cookies.pendingMfa] : [cookies.pendingMfa, cookies.session];
    return [setCookieHeader(cookies, set, intent.token, intent.maxAgeSeconds), clearCookieHeader(cookies, clear)];
  }
  const cleared = [clearCookieHeader(cookies, cookies.session)];
  if (intent.keepPendingMfa !== true) cleared.push(clearCookieHeader(cookies, cookies.pendingMfa));
  return cleared;
}
