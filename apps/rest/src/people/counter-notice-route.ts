import { COUNTER_NOTICE_INPUT_SCHEMA, fileCounterNoticeAsOwner } from "@agentq/core";
import type { Authenticator, CoreDeps } from "@agentq/core";
import type { SessionEdge } from "@agentq/http";
import type { Context, Hono } from "hono";
import { errorResponse } from "../error-response.ts";
import type { RestLogger } from "../logger.ts";
import type { PlainRouteDescription } from "../openapi.ts";
import type { RestEnv } from "../rest-env.ts";
import type { RouteTable } from "@agentq/http";
import { json, readBody } from "./auth-routes.ts";
import { authenticateCaller } from "./authenticate-caller.ts";

/** The counter-notice route as the OpenAPI document lists it (a person's route, not an MCP tool). */
export const COUNTER_NOTICE_ROUTE_DESCRIPTION: PlainRouteDescription = {
  method: "POST",
  path: "/v1/notices/{notice_id}/counter-notice",
  operationId: "file_counter_notice",
  summary: "The workspace owner (session + fresh MFA step-up) contests a decision that took action: a DMCA counter-notice (17 U.S.C. 512(g)(3) elements) or a DSA complaint (explanation). A DMCA measure is lifted 10 to 14 business days later unless a court action is recorded.",
  security: "session",
  parameters: [{ name: "notice_id", in: "path", required: true, schema: { type: "string" } }],
  requestBody: COUNTER_NOTICE_INPUT_SCHEMA,
  response: { type: "object", properties: { id: { type: "string" }, state: { const: "contested" } } },
  errors: [400, 401, 403, 404, 409, 503],
};

/**
 * Registers POST /v1/notices/{notice_id}/counter-notice: the owner's counter-notice, with the
 * rule (owner, fresh step-up) in the core's `fileCounterNoticeAsOwner`. A notice that does not
 * exist or was not disclosed to the caller's workspace is the same 404.
 */
export function registerCounterNoticeRoute(app: Hono<RestEnv>, routes: RouteTable, deps: { core: CoreDeps; authenticator: Pick<Authenticator, "authenticate">; sessions: SessionEdge; logger: RestLogger }): void {
  routes.add("POST", "/v1/notices/{notice_id}/counter-notice");
  app.post("/v1/notices/:notice_id/counter-notice", async (c: Context<RestEnv>) => {
    try {
      const principal = await authenticateCaller(c, { core: deps.core, authenticator: deps.authenticator, sessions: deps.sessions }, { deferCallerCheck: false });
      c.set("principal", principal);
      const input = await readBody(c, COUNTER_NOTICE_INPUT_SCHEMA);
      const view = await fileCounterNoticeAsOwner(deps.core, principal, { noticeId: c.req.param("notice_id") ?? "", input, requestId: c.get("requestId") });
      return json(200, view);
    } catch (err) {
      return errorResponse(c, err, deps.logger);
    }
  });
}
