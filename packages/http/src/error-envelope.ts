import { DomainError, ERROR_CATALOGUE, isDomainError, toErrorEnvelope } from "@agentq/core";
import type { Context, ErrorHandler, NotFoundHandler } from "hono";
import { REQUEST_ID_HEADER, type EdgeEnv } from "./request-id.ts";
import type { RouteTable } from "./route-table.ts";

/** Extra headers of one error answer (a 401's challenge, a 405's Allow). */
export type ErrorHeaders = Record<string, string>;

/**
 * Renders any thrown value as the error envelope `{ error: { code, message, details? },
 * request_id }`, with the code's status from the error catalogue, `Content-Type:
 * application/json; charset=utf-8`, `Cache-Control: no-store` and X-Request-Id, plus `headers`.
 * A DomainError's `retryAfterSeconds` becomes Retry-After. Anything that is not a DomainError is
 * a server fault: 503 SVC_SERVICE_UNAVAILABLE, its message never sent (report it with
 * `reportFaultTo`). The one error answer of REST, MCP, OAuth (outside the OAuth protocol) and the
 * dashboard (to clients that do not ask for HTML).
 */
export function errorEnvelopeResponse(c: Context<EdgeEnv>, err: unknown, headers: ErrorHeaders = {}): Response {
  const requestId = c.get("requestId");
  const envelope = toErrorEnvelope(err, requestId);
  const all: ErrorHeaders = { "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store", [REQUEST_ID_HEADER]: requestId };
  if (isDomainError(err) && err.retryAfterSeconds !== undefined) all["Retry-After"] = String(Math.max(0, Math.ceil(err.retryAfterSeconds)));
  return new Response(JSON.stringify(envelope), { status: ERROR_CATALOGUE[envelope.error.code].status, headers: { ...all, ...headers } });
}

/** Where an app logs server faults: pino's `error(fields, message)`, so a pino logger fits as is. */
export interface FaultLogger {
  error(fields: Record<string, unknown>, message: string): void;
}

/**
 * Logs a server fault (anything thrown that is not a DomainError) as one line: the request id,
 * method and path, and the fault's name, message and stack; never the request's headers or body.
 * Does nothing for a DomainError (a refusal, not a fault).
 */
export function reportFaultTo(logger: FaultLogger, message: string): (err: unknown, c: Context<EdgeEnv>) => void {
  return (err, c) => {
    if (isDomainError(err)) return;
    logger.error({ request_id: c.get("requestId"), method: c.req.method, path: c.req.path, err: describeFault(err) }, message);
  };
}

// What the log keeps of a fault: its name, message and stack (server-side only, never sent).
function describeFault(err: unknown): Record<string, unknown> {
  if (err instanceof Error) return { type: err.name, message: err.message, stack: err.stack };
  return { type: typeof err };
}

/**
 * The `onError` of every app: tells `onFault` about a server fault (anything not a DomainError),
 * then answers with `render`, by default the error envelope.
 */
export function errorHandler(options: { onFault?: (err: unknown, c: Context<EdgeEnv>) => void; render?: (c: Context<EdgeEnv>, err: unknown) => Response | Promise<Response> } = {}): ErrorHandler<EdgeEnv> {
  const render = options.render ?? ((c, err) => errorEnvelopeResponse(c, err));
  return (err, c) => {
    if (!isDomainError(err)) options.onFault?.(err, c);
    return render(c, err);
  };
}

/**
 * The `notFound` of every app, for a request no route answered: 405 SVC_METHOD_NOT_ALLOWED
 * (details.method and allowed_methods, the Allow header) when `routes` has the path for other
 * methods, else 404 SVC_ROUTE_NOT_FOUND (details.path). `render` draws the refusal (default: the
 * error envelope; the dashboard draws a page for a browser).
 */
export function routeNotFound(
  routes: Pick<RouteTable, "allowedMethods">,
  options: { notFoundMessage?: string; render?: (c: Context<EdgeEnv>, err: DomainError, headers: ErrorHeaders) => Response | Promise<Response> } = {},
): NotFoundHandler<EdgeEnv> {
  const render = options.render ?? ((c, err, headers) => errorEnvelopeResponse(c, err, headers));
  const notFoundMessage = options.notFoundMessage ?? "No route matches this path.";
  return (c) => {
    const allowed = routes.allowedMethods(c.req.path);
    if (allowed.length === 0) return render(c, new DomainError("SVC_ROUTE_NOT_FOUND", notFoundMessage, { path: c.req.path }), {});
    return render(c, new DomainError("SVC_METHOD_NOT_ALLOWED", `This route does not accept ${c.req.method}.`, { method: c.req.method, allowed_methods: allowed }), { Allow: allowed.join(", ") });
  };
}
