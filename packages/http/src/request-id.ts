import type { IdSource, Principal } from "@agentq/core";
import type { MiddlewareHandler } from "hono";

/** The response header carrying the request id. */
export const REQUEST_ID_HEADER = "X-Request-Id";

/**
 * The Hono environment the edge pieces read and write: the request id (set by `requestId`) and
 * the authenticated caller (set by an app's routes, read by the access log). Every app's own
 * environment extends it.
 */
export interface EdgeEnv {
  Variables: {
    /** The request id (a ULID), sent back as X-Request-Id and in every error envelope. */
    requestId: string;
    /** The authenticated caller, once a route has authenticated it (for the access log). */
    principal?: Principal;
  };
}

/**
 * Gives every request a fresh id from `ids` (ULIDs) as its request id and sends it back as
 * X-Request-Id on every response, errors included (the error renderers put the same value in
 * `request_id`). The one request-id middleware of REST, MCP, OAuth and the dashboard.
 *
 * A request id the client sends is not echoed: the id is written into audit rows and
 * idempotency records (`details.original_request_id`), so it must be unique and the server's own.
 */
export function requestId(ids: IdSource): MiddlewareHandler<EdgeEnv> {
  return async (c, next) => {
    // Hono runs a "*" middleware twice for the literal path "/*" (e.g. /v1/../*): the second run
    // must keep the first id, or the envelope and the header would name different requests.
    if (c.get("requestId") !== undefined) return next();
    const id = ids.next();
    c.set("requestId", id);
    await next();
    c.res.headers.set(REQUEST_ID_HEADER, id);
  };
}
