import { ERROR_CATALOGUE, isDomainError, toErrorEnvelope } from "@agentq/core";
import { bearerChallenge } from "@agentq/http";
import type { Context } from "hono";
import type { RestLogger } from "./logger.ts";
import { REQUEST_ID_HEADER } from "./middleware/request-id.ts";
import type { RestEnv } from "./rest-env.ts";

/** The realm of the REST API's Bearer challenges. */
export const BEARER_REALM = "agentq";

/**
 * Renders any thrown value as the error envelope `{ error: { code, message, details? },
 * request_id }` with `Cache-Control: no-store` and the X-Request-Id header.
 *
 * - A 401 carries `WWW-Authenticate: Bearer realm="agentq"` (RFC 6750 §3), with
 *   `error="invalid_token"` when an Authorization header was presented but cannot be used.
 * - A DomainError keeps its code and the catalogue's status; `retryAfterSeconds` becomes
 *   Retry-After.
 * - Anything else is a server fault: it is logged (with the request id, never the request) and
 *   answered 503 SVC_SERVICE_UNAVAILABLE without its message, so internals never leak.
 */
export function errorResponse(c: Context<RestEnv>, err: unknown, logger: RestLogger): Response {
  const requestId = c.get("requestId");
  const envelope = toErrorEnvelope(err, requestId);
  const headers: Record<string, string> = {
    "Content-Type": "application/json; charset=utf-8",
    "Cache-Control": "no-store",
    [REQUEST_ID_HEADER]: requestId,
  };
  if (isDomainError(err)) {
    if (err.status === 401) headers["WWW-Authenticate"] = bearerChallenge([`realm="${BEARER_REALM}"`], c.req.header("Authorization"));
    if (err.retryAfterSeconds !== undefined) headers["Retry-After"] = String(Math.max(0, Math.ceil(err.retryAfterSeconds)));
  } else {
    logger.error({ request_id: requestId, method: c.req.method, path: c.req.path, err: describeFault(err) }, "request failed with a server fault");
  }
  return new Response(JSON.stringify(envelope), { status: ERROR_CATALOGUE[envelope.error.code].status, headers });
}

// What the log keeps of a fault: its name, message and stack (server-side only, never sent).
function describeFault(err: unknown): Record<string, unknown> {
  if (err instanceof Error) return { type: err.name, message: err.message, stack: err.stack };
  return { type: typeof err };
}
