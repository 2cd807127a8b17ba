import { closeWorkspace, DomainError, erasePerson, exportDocument, recordExport } from "@agentq/core";
import type { Authenticator, CoreDeps, PersonPrincipal, Principal } from "@agentq/core";
import type { Context, Hono } from "hono";
import { errorResponse } from "../error-response.ts";
import type { RestLogger } from "../logger.ts";
import type { PlainRouteDescription } from "../openapi.ts";
import type { RestEnv } from "../rest-env.ts";
import type { RouteTable } from "@agentq/http";
import { json } from "./auth-routes.ts";
import { authenticateCaller } from "./authenticate-caller.ts";
import { clearCookieHeader } from "@agentq/http";
import type { SessionEdge } from "@agentq/http";

/** The closing, erasing and export routes as the OpenAPI document lists them (people's routes, not MCP tools). */
export const CLOSING_ROUTE_DESCRIPTIONS: readonly PlainRouteDescription[] = [
  {
    method: "DELETE", path: "/v1/workspaces/me", operationId: "close_workspace", summary: "Closes the workspace (owner session + fresh MFA step-up): every AI account and credential revoked at once; payloads deleted 30 days later; not reversible.", security: "session",
    response: { type: "object", properties: { workspace: { type: "object", properties: { id: { type: "string" }, state: { const: "closed" }, closed_at: { type: "string" } } }, payload_deletion_at: { type: "string" } } }, errors: [401, 403, 503],
  },
  {
    method: "DELETE", path: "/v1/me", operationId: "erase_me", summary: "Erases the signed-in person (session + fresh MFA step-up); the last owner's workspace is frozen and its AI accounts revoked; the workspace record and audit chain stay.", security: "session",
    response: { type: "object", properties: { erased: { type: "object" }, workspace: { type: "object" } } }, errors: [401, 403, 503],
  },
  { method: "GET", path: "/v1/me/export", operationId: "export_me", summary: "One JSON document with the person and everything of the workspace (no secrets), streamed.", security: "session", response: { type: "object", properties: { format: { const: "agentq.export.v1" } } }, errors: [401, 403, 503] },
];

/** A person's principal, or 403 SVC_TIER_INSUFFICIENT for a credential. */
function personOnly(principal: Principal, what: string): PersonPrincipal {
  if (principal.kind !== "person") throw new DomainError("SVC_TIER_INSUFFICIENT", `${what} needs a person's session; a credential cannot do it.`, { required: "session" });
  return principal;
}

/**
 * Registers DELETE /v1/workspaces/me, DELETE /v1/me and GET /v1/me/export (DESIGN §2b; GET
 * /v1/workspaces/me is the catalogue's get_workspace). Closing and erasing need a person's
 * session with a fresh step-up; export a person's session. In a closed workspace, erase and
 * export keep working.
 */
export function registerClosingRoutes(app: Hono<RestEnv>, routes: RouteTable, deps: { core: CoreDeps; authenticator: Pick<Authenticator, "authenticate">; sessions: SessionEdge; logger: RestLogger }): void {
  const { core, logger, sessions } = deps;
  const handle = (run: (c: Context<RestEnv>) => Promise<Response>) => async (c: Context<RestEnv>) => {
    try {
      return await run(c);
    } catch (err) {
      return errorResponse(c, err, logger);
    }
  };
  const caller = async (c: Context<RestEnv>): Promise<Principal> => {
    const principal = await authenticateCaller(c, { core, authenticator: deps.authenticator, sessions }, { deferCallerCheck: false });
    c.set("principal", principal);
    return principal;
  };
  const requestId = (c: Context<RestEnv>) => c.get("requestId");

  routes.add("DELETE", "/v1/workspaces/me");
  app.delete("/v1/workspaces/me", handle(async (c) => json(200, await closeWorkspace(core, await caller(c), { requestId: requestId(c) }))));

  routes.add("DELETE", "/v1/me");
  app.delete("/v1/me", handle(async (c) => {
    const erased = await erasePerson(core, await caller(c), { requestId: requestId(c) });
    return json(200, erased, [clearCookieHeader(sessions.cookies, sessions.cookies.session), clearCookieHeader(sessions.cookies, sessions.cookies.pendingMfa)]);
  }));

  routes.add("GET", "/v1/me/export");
  app.get("/v1/me/export", handle(async (c) => {
    const actor = personOnly(await caller(c), "The export");
    await recordExport(core, actor, { requestId: requestId(c) });
    const chunks = exportDocument(core, actor);
    const encoder = new TextEncoder();
    const id = requestId(c);
    const body = new ReadableStream<Uint8Array>({
      async pull(controller) {
        try {
          const next = await chunks.next();
          if (next.done) controller.close();
          else controller.enqueue(encoder.encode(next.value));
        } catch (error) {
          // The status is sent already: the document ends unfinished, so it does not parse.
          logger.error({ request_id: id, err: error instanceof Error ? { name: error.name, message: error.message } : String(error) }, "export failed while streaming");
          controller.error(error);
        }
      },
      async cancel() {
        await chunks.return(undefined);
      },
    });
    const day = core.clock.now().toISOString().slice(0, 10);
    return new Response(body, {
      status: 200,
      headers: { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", "Content-Disposition": `attachment; filename="agentq-export-${actor.workspace.id}-${day}.json"` },
    });
  }));
}
