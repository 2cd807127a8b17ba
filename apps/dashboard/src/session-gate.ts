import { authenticateSession, isDomainError } from "@agentq/core";
import type { CoreDeps } from "@agentq/core";
import { checkCookieWrite, readCookie, type SessionEdge } from "@agentq/http";
import type { MiddlewareHandler } from "hono";
import type { DashboardEnv } from "./dashboard-env.ts";

/**
 * Every POST to the dashboard must come from the service's own origin (Origin, else
 * Sec-Fetch-Site same-origin: the one check of @agentq/http, as REST's), signed in or not:
 * sign-in, sign-up, sign-out and the OAuth consent included, so another site can neither act
 * for a signed-in person nor sign a browser in or out.
 * @throws DomainError SVC_CSRF_REJECTED (rendered as a page)
 */
export function sameOriginPosts(sessions: SessionEdge): MiddlewareHandler<DashboardEnv> {
  return async (c, next) => {
    checkCookieWrite(c, sessions.publicOrigin);
    await next();
  };
}

/**
 * The pages of a signed-in person: the session cookie's person (read fresh on every request)
 * becomes the request's principal; without a live session a GET goes to the sign-in page with
 * a way back, anything else to the sign-in page.
 */
export function requireSession(deps: CoreDeps, sessions: SessionEdge): MiddlewareHandler<DashboardEnv> {
  return async (c, next) => {
    const value = readCookie(c, sessions.cookies.session);
    try {
      if (value === null) return signInFirst(c.req.method, c.req.url, c.req.header("HX-Request") === "true");
      c.set("principal", await authenticateSession(deps, value));
    } catch (err) {
      if (isDomainError(err) && err.code === "SVC_UNAUTHENTICATED") return signInFirst(c.req.method, c.req.url, c.req.header("HX-Request") === "true");
      throw err;
    }
    await next();
  };
}

// An htmx request (a boosted link or form) is told to load the sign-in page as a whole page: the
// sign-in page has no #frame to swap in.
function signInFirst(method: string, url: string, fromHtmx: boolean): Response {
  const u = new URL(url);
  const back = method === "GET" ? `${u.pathname}${u.search}` : "/";
  const location = `/sign-in?${new URLSearchParams({ return_to: back }).toString()}`;
  if (fromHtmx) return new Response(null, { status: 200, headers: { "HX-Redirect": location, "Cache-Control": "no-store" } });
  return new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });
}
