import { isDomainError } from "@agentq/core";
import { bearerChallenge, errorEnvelopeResponse, reportFaultTo, type ErrorHeaders } from "@agentq/http";
import type { Context } from "hono";
import type { RestLogger } from "./logger.ts";
import type { RestEnv } from "./rest-env.ts";

/** The realm of the REST API's Bearer challenges. */
export const BEARER_REALM = "agentq";

/**
 * Renders any thrown value as the error envelope (`errorEnvelopeResponse`: `{ error: { code,
 * message, details? }, request_id }`, Cache-Control: no-store, X-Request-Id, Retry-After), the
 * REST API's way:
 *
 * - A 401 carries `WWW-Authenticate: Bearer realm="agentq"` (RFC 6750 §3), with
 *   `error="invalid_token"` when an Authorization header was presented but cannot be used.
 * - Anything that is not a DomainError is a server fault: it is logged (with the request id,
 *   never the request) and answered 503 SVC_SERVICE_UNAVAILABLE without its message, so
 *   internals never leak.
 */
export function errorResponse(c: Context<RestEnv>, err: unknown, logger: RestLogger): Response {
  reportFaultTo(logger, "request failed with a server fault")(err, c);
  const headers: ErrorHeaders = {};
  if (isDomainError(err) && err.status === 401) headers["WWW-Authenticate"] = bearerChallenge([`realm="${BEARER_REALM}"`], c.req.header("Authorization"));
  return errorEnvelopeResponse(c, err, headers);
}
