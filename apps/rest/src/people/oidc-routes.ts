import { authenticateSession, finishOidcSignIn, isDomainError, malformed, sessionUnauthenticated, startOidcSignIn } from "@agentq/core";
import type { CoreDeps, PersonPrincipal } from "@agentq/core";
import type { Context, Hono } from "hono";
import { errorResponse } from "../error-response.ts";
import type { RestLogger } from "../logger.ts";
import type { PlainRouteDescription } from "../openapi.ts";
import type { RestEnv } from "../rest-env.ts";
import type { RouteTable } from "@agentq/http";
import { requestOrigin } from "@agentq/http";
import { clearCookieHeader, readCookie, setCookieHeader } from "@agentq/http";
import type { SessionEdge } from "@agentq/http";

/** The cookie holding one OIDC sign-in attempt between the redirect and the callback (ten minutes). */
export function oidcAttemptCookieName(sessions: SessionEdge): string {
  return sessions.cookies.secure ? "__Host-agentq_oidc" : "agentq_oidc";
}

/** The OIDC routes as the OpenAPI document lists them (browser navigations, not MCP tools). */
export const OIDC_ROUTE_DESCRIPTIONS: readonly PlainRouteDescription[] = [
  {
    method: "GET", path: "/v1/auth/oidc/start", operationId: "start_oidc_sign_in", summary: "Redirects (302) to the identity provider: authorization code flow with PKCE, state and nonce; return_to is a path of this service. With link=1 (a signed-in person's session), the identity signed in with at the provider is linked to that person instead.",
    parameters: [
      { name: "return_to", in: "query", required: false, schema: { type: "string", description: "Where to land after the sign-in: a path of this service (default /)." } },
      { name: "link", in: "query", required: false, schema: { type: "string", enum: ["1"], description: "1: link the provider identity to the signed-in person (needs the session cookie) rather than sign in." } },
    ],
    status: 302, response: null, errors: [400, 401, 404, 503],
  },
  {
    method: "GET", path: "/v1/auth/oidc/callback", operationId: "finish_oidc_sign_in", summary: "The identity provider's redirect back: signs in the person the identity is linked to, or signs up the verified email of a new one, and redirects (302) to return_to with a session; an email that has an account is 409 (link it from that person's settings). A linking attempt links the identity and redirects without a new session.",
    status: 302, response: null, errors: [401, 403, 404, 409, 503],
  },
];

/**
 * Registers OIDC sign-in (DESIGN §2b, §2c; whether it is configured is the catalogue's
 * get_oidc_provider): /v1/auth/oidc/start and /v1/auth/oidc/callback. Both are top-level browser navigations (GET,
 * answered with 302); the attempt travels in an HttpOnly SameSite=Lax cookie, sent on the
 * provider's redirect back, and so does the session cookie a linking attempt (`?link=1`, from the
 * person's settings) needs at both ends. An identity provider that cannot be reached is 503
 * SVC_SERVICE_UNAVAILABLE.
 */
export function registerOidcRoutes(app: Hono<RestEnv>, routes: RouteTable, deps: { core: CoreDeps; sessions: SessionEdge; logger: RestLogger }): void {
  const { core, sessions, logger } = deps;
  const attemptCookie = oidcAttemptCookieName(sessions);
  const handle = (run: (c: Context<RestEnv>) => Promise<Response>) => async (c: Context<RestEnv>) => {
    try {
      return await run(c);
    } catch (err) {
      return errorResponse(c, err, logger);
    }
  };
  const redirect = (location: string, cookies: readonly string[]) => {
    const headers = new Headers({ Location: location, "Cache-Control": "no-store" });
    for (const cookie of cookies) headers.append("Set-Cookie", cookie);
    return new Response(null, { status: 302, headers });
  };

  /** The person of the session cookie, or null when there is none or it is not live. */
  const sessionOf = async (c: Context<RestEnv>): Promise<PersonPrincipal | null> => {
    const value = readCookie(c, sessions.cookies.session);
    if (value === null) return null;
    try {
      return await authenticateSession(core, value);
    } catch (err) {
      if (isDomainError(err) && err.code === "SVC_UNAUTHENTICATED") return null;
      throw err;
    }
  };

  routes.add("GET", "/v1/auth/oidc/start");
  app.get("/v1/auth/oidc/start", handle(async (c) => {
    const link = c.req.query("link");
    if (link !== undefined && link !== "1") throw malformed("link must be 1 when present.", { field: "link" });
    let linkFor: PersonPrincipal | null = null;
    if (link === "1") {
      linkFor = await sessionOf(c);
      if (linkFor === null) throw sessionUnauthenticated();
    }
    const started = await startOidcSignIn(core, { returnTo: c.req.query("return_to"), linkFor });
    return redirect(started.redirectTo, [`${attemptCookie}=${started.attemptCookie}; Path=/; HttpOnly; SameSite=Lax; Max-Age=600${sessions.cookies.secure ? "; Secure" : ""}`]);
  }));

  routes.add("GET", "/v1/auth/oidc/callback");
  app.get("/v1/auth/oidc/callback", handle(async (c) => {
    const query = new URL(c.req.url).search;
    try {
      const done = await finishOidcSignIn(core, { query, attemptCookie: readCookie(c, attemptCookie), session: await sessionOf(c) }, { origin: requestOrigin(c, sessions.origin, (address) => sessions.isTrustedProxy(address)), requestId: c.get("requestId") });
      if (done.kind === "linked") return redirect(done.redirectTo, [clearCookieHeader(sessions.cookies, attemptCookie)]);
      const lifetimeS = (done.session.expiresAt.getTime() - done.session.createdAt.getTime()) / 1000;
      const cookies = done.session.stage === "pending_mfa"
        ? [setCookieHeader(sessions.cookies, sessions.cookies.pendingMfa, done.token, lifetimeS), clearCookieHeader(sessions.cookies, sessions.cookies.session)]
        : [setCookieHeader(sessions.cookies, sessions.cookies.session, done.token, lifetimeS), clearCookieHeader(sessions.cookies, sessions.cookies.pendingMfa)];
      return redirect(done.redirectTo, [...cookies, clearCookieHeader(sessions.cookies, attemptCookie)]);
    } catch (err) {
      // The attempt is spent either way: a retry starts again at /v1/auth/oidc/start.
      const res = errorResponse(c, err, logger);
      res.headers.append("Set-Cookie", clearCookieHeader(sessions.cookies, attemptCookie));
      return res;
    }
  }));
}
