import { confirmPasswordReset } from "@agentq/core";
import type { CoreDeps } from "@agentq/core";
import { Type } from "@sinclair/typebox";
import type { Context, Hono } from "hono";
import { errorResponse } from "../error-response.ts";
import type { RestLogger } from "../logger.ts";
import type { PlainRouteDescription } from "../openapi.ts";
import type { RestEnv } from "../rest-env.ts";
import type { RouteTable } from "@agentq/http";
import { json, readBody } from "./auth-routes.ts";
import { acceptPasswordReset, refuseForeignOrigin, requestOrigin, type AfterAnswerWork } from "@agentq/http";
import { clearCookieHeader } from "@agentq/http";
import type { SessionEdge } from "@agentq/http";

/** POST /v1/auth/password-reset's body. */
export const PasswordResetBody = Type.Object({ email: Type.String({ minLength: 1, maxLength: 320, description: "The email address of the account." }) });
/** POST /v1/auth/password-reset/confirm's body. */
export const PasswordResetConfirmBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: "The mailed token (agq_pr_... for a reset, agq_iv_... for an invitation)." }),
  password: Type.String({ minLength: 1, maxLength: 1024, description: "The new password: 12 to 256 characters; not a common password; not containing the email's local part." }),
});
/** The password-reset routes as the OpenAPI document lists them (human routes, not MCP tools). */
export const PEOPLE_ROUTE_DESCRIPTIONS: readonly PlainRouteDescription[] = [
  {
    method: "POST", path: "/v1/auth/password-reset", operationId: "request_password_reset", summary: "Mails a single-use password-reset link valid one hour to the address, when it has an account; 202 whatever the address.",
    status: 202, requestBody: PasswordResetBody, response: { type: "object" }, errors: [400, 403, 413, 415, 429],
  },
  {
    method: "POST", path: "/v1/auth/password-reset/confirm", operationId: "confirm_password_reset", summary: "Sets a new password with a mailed reset or invitation token; every session of the person ends.",
    status: 204, requestBody: PasswordResetConfirmBody, response: null, errors: [400, 401, 403, 413, 415, 429, 503],
  },
];

/** What the password-reset routes need. */
export interface PeopleRouteDeps {
  core: CoreDeps;
  sessions: SessionEdge;
  logger: RestLogger;
  /** Runs a reset's work after its answer. */
  afterAnswer: AfterAnswerWork;
}

/**
 * Registers the password-reset routes under /v1/auth (DESIGN §2b; the people routes under
 * /v1/people are the catalogue's people area). A reset request answers 202 once the per-address
 * limit and the email's form are checked, and its whole work (lookup, token, mail, audit row)
 * runs after the answer (`afterAnswer`), so the answer is the same, in the same time, whatever
 * the address.
 */
export function registerPeopleRoutes(app: Hono<RestEnv>, routes: RouteTable, deps: PeopleRouteDeps): void {
  const { core, logger, sessions, afterAnswer } = deps;
  const origin = (c: Context<RestEnv>) => requestOrigin(c, sessions.origin, sessions.isTrustedProxy);
  const handle = (run: (c: Context<RestEnv>) => Promise<Response>) => async (c: Context<RestEnv>) => {
    try {
      return await run(c);
    } catch (err) {
      return errorResponse(c, err, logger);
    }
  };
  const requestId = (c: Context<RestEnv>) => c.get("requestId");
  const clearCookies = [clearCookieHeader(sessions.cookies, sessions.cookies.session), clearCookieHeader(sessions.cookies, sessions.cookies.pendingMfa)];

  routes.add("POST", "/v1/auth/password-reset");
  app.post("/v1/auth/password-reset", handle(async (c) => {
    refuseForeignOrigin(c, sessions.publicOrigin);
    const body = await readBody(c, PasswordResetBody);
    // The answer does not wait for the work: whether the email has an account, and whether a mail leaves, must not show in the answer or its timing.
    await acceptPasswordReset({ core, afterAnswer }, body, { origin: origin(c), requestId: requestId(c) });
    return json(202, { message: "If this address has an account, a link to reset its password is on its way; it works once, within one hour." });
  }));

  routes.add("POST", "/v1/auth/password-reset/confirm");
  app.post("/v1/auth/password-reset/confirm", handle(async (c) => {
    refuseForeignOrigin(c, sessions.publicOrigin);
    const body = await readBody(c, PasswordResetConfirmBody);
    await confirmPasswordReset(core, body, { origin: origin(c), requestId: requestId(c) });
    const headers = new Headers({ "Cache-Control": "no-store" });
    for (const cookie of clearCookies) headers.append("Set-Cookie", cookie);
    return new Response(null, { status: 204, headers });
  }));
}
