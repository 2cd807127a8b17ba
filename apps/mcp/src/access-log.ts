import type { Principal } from "@agentq/core";
import type { MiddlewareHandler } from "hono";
import { routePath } from "hono/route";

/**
 * One served HTTP request, as the access log records it: method and matched route (never the
 * raw URL, its query string or any header), status, duration, request id and the caller when it
 * authenticated. Never carries a body, a tool's arguments, a token or the Authorization header.
 * The same shape as the REST app's `ServedRequest` (apps/rest), so one log serves both.
 */
export interface ServedRequest {
  method: string;
  /** The matched route (`/mcp`, a metadata path), or null when none matched. */
  route: string | null;
  /** The path without its query string, only when no route matched. */
  path?: string;
  status: number;
  duration_ms: number;
  request_id: string;
  workspace_id?: string;
  ai_account_id?: string;
  credential_id?: string;
}

/** Reports every request the app answers to `onServed`, once its response is ready; register it first. */
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
      ...(principal === undefined ? {} : { workspace_id: principal.workspace.id, ai_account_id: principal.account.id, credential_id: principal.credential.id }),
    });
  };
}
