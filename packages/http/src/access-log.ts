import type { Principal } from "@agentq/core";
import type { MiddlewareHandler } from "hono";
import type { Context } from "hono";
import { matchedRoutes } from "hono/route";

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
    const route = answeringRoute(c);
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

const isWildcard = (path: string): boolean => path.endsWith("*");

/**
 * The route pattern of the handler that answered, or null when no route matched. Several routes
 * may match one path (`/v1/backlog/search` and `/v1/backlog/{backlog_item_id}`): the one that
 * ran is at `c.req.routeIndex`, where Hono's dispatch stopped (the last matched route is merely
 * the one registered last). When a middleware answered (a pattern ending in `*`, such as a
 * refusal before any handler ran), the route is the first non-wildcard route matched after it:
 * the handler that would have run. Only catch-alls means that no route matched.
 */
export function answeringRoute(c: Context): string | null {
  const routes = matchedRoutes(c);
  const index = c.req.routeIndex;
  const answered = routes[index]?.path ?? "";
  if (!isWildcard(answered)) return answered === "" ? null : answered;
  const aimed = routes.slice(index + 1).find((r) => !isWildcard(r.path));
  if (aimed !== undefined) return aimed.path;
  return answered === "*" || answered === "/*" ? null : answered;
}
