import { authenticateSession } from "@agentq/core";
import type { Authenticator, CoreDeps, Principal } from "@agentq/core";
import type { Context } from "hono";
import { checkCookieWrite, readCookie, type SessionEdge } from "@agentq/http";

/**
 * Authenticates the caller of an operation route: a bearer credential when the request has an
 * Authorization header (a session value there is refused 401 like any unknown token, and a
 * cookie alongside is ignored), else the person's session cookie, whose writes must come from
 * the service's own origin.
 * @throws DomainError SVC_UNAUTHENTICATED, SVC_CSRF_REJECTED, and the authenticator's refusals.
 */
export async function authenticateCaller(
  c: Context,
  deps: { core: CoreDeps; authenticator: Pick<Authenticator, "authenticate">; sessions: SessionEdge },
  options: { deferCallerCheck: boolean },
): Promise<Principal> {
  const authorization = c.req.header("authorization") ?? null;
  if (authorization === null) {
    const cookie = readCookie(c, deps.sessions.cookies.session);
    if (cookie !== null) {
      const principal = await authenticateSession(deps.core, cookie);
      checkCookieWrite(c, deps.sessions.publicOrigin);
      return principal;
    }
  }
  return deps.authenticator.authenticate(authorization, options);
}
