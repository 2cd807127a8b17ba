import type { Principal } from "@agentq/core";
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";

/**
 * One served HTTP request, as the access log records it: what was asked (method and the matched
 * route pattern, never the raw URL, its query string or any header), how it ended and who asked.
 * Field names are the log's (snake_case, like `request_id` in the error envelope). Never carries
 * a body, a payload, a tool's arguments, a token or the Authorization header. REST and MCP log
 * the same shape, so one log serves both.
 */
export interface ServedRequest {
  method: string;
  /** The matched route pattern (`/v1/messages/:id/ack`, `/mcp`), or null when no route matched. */
  route: string | null;
  /** The path without its query string, only when no route matched (so a 404 says what was asked). */
  path?: string;
  status: number;
  /** From the request's arrival in the app to its response (a long poll counts its wait). */
  duration_ms: number;
  request_id: string;
  /** The caller, when the request authenticated. */
  workspace_id?: string;
  ai_account_id?: string;
  credential_id?: string;
}

/**
 * Reports every request the app answers to `onServed`, once, after the response is ready (errors
 * included: the error handler has rendered the envelope by then). Register it first, so it sees
 * the request id, the route and the caller the later middleware and handlers set.
 */
export function accessLog(onServed: (entry: ServedRequest) => void): MiddlewareHandler<{ Variables: { requestId: string; principal?: Principal } }> {
  return async (c, next) => {
    const startedAt = performance.now();
    await next();
    // The last matched route is the handler's; only a catch-all middleware ("*", which Hono
    // registers as "/*") means that no route matched.
    const pattern = routePath(c, -1);
    const route = pattern === "" || pattern === "*" || pattern === "/*" ? null : pattern;
    const principal = c.get("principal");
    onServed({
      method: c.req.method,
      route,
      ...(route === null ? { path: c.req.path } : {}),
      status: c.res.status,
      duration_ms: Math.round((performance.now() - startedAt) * 10) / 10,
      request_id: c.get("requestId"),
      ...(principal === undefined ? {} : principal.kind === "person" ? { workspace_id: principal.workspace.id, person_id: principal.person.id } : { workspace_id: principal.workspace.id, ai_account_id: principal.account.id, credential_id: principal.credential.id }),
    });
  };
}
