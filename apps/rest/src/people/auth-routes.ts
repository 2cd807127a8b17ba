import { authenticateSession, isDomainError, signOut } from "@agentq/core";
import type { CoreDeps } from "@agentq/core";
import type { Context, Hono } from "hono";
import { errorResponse } from "../error-response.ts";
import type { RestLogger } from "../logger.ts";
import type { PlainRouteDescription } from "../openapi.ts";
import type { RestEnv } from "../rest-env.ts";
import { checkCookieWrite, readCookie, sessionIntentCookies, type RouteTable, type SessionEdge } from "@agentq/http";

/** What the sign-out route needs. */
export interface AuthRouteDeps {
  core: CoreDeps;
  sessions: SessionEdge;
  logger: RestLogger;
}

/**
 * The sign-out route as the OpenAPI document lists it (a human route, not an MCP tool). The
 * rest of a browser's sign-in (sign-up, verify-email, sign-in, MFA, step-up) is the catalogue's
 * (packages/core/src/people/auth-operations.ts).
 */
export const AUTH_ROUTE_DESCRIPTIONS: readonly PlainRouteDescription[] = [
  { method: "POST", path: "/v1/auth/sign-out", operationId: "sign_out", summary: "Sign out: ends the session and clears the cookie.", status: 204, response: null, errors: [403, 503] },
];

/**
 * Registers POST /v1/auth/sign-out (DESIGN §2b): ends the session of the cookie, when it names a
 * live one, and clears the cookies whatever it named (an unknown or expired session is signed
 * out already). A request carrying the session cookie must come from the service's own origin
 * (403 SVC_CSRF_REJECTED), so another site cannot sign a browser out.
 */
export function registerAuthRoutes(app: Hono<RestEnv>, routes: RouteTable, deps: AuthRouteDeps): void {
  const { cookies } = deps.sessions;
  routes.add("POST", "/v1/auth/sign-out");
  app.post("/v1/auth/sign-out", async (c: Context<RestEnv>) => {
    try {
      const value = readCookie(c, cookies.session);
      if (value !== null) {
        checkCookieWrite(c, deps.sessions.publicOrigin);
        try {
          const principal = await authenticateSession(deps.core, value);
          await signOut(deps.core, principal.session, { requestId: c.get("requestId") });
        } catch (e) {
          // An unknown or expired session is signed out already.
          if (!isDomainError(e) || e.code !== "SVC_UNAUTHENTICATED") throw e;
        }
      }
      const headers = new Headers({ "Cache-Control": "no-store" });
      for (const cookie of sessionIntentCookies(cookies, { kind: "end" })) headers.append("Set-Cookie", cookie);
      return new Response(null, { status: 204, headers });
    } catch (err) {
      return errorResponse(c, err, deps.logger);
    }
  });
}
