import type { IdSource } from "@agentq/core";
import type { MiddlewareHandler } from "hono";
import type { RestEnv } from "../rest-env.ts";

/** The response header carrying the request id. */
export const REQUEST_ID_HEADER = "X-Request-Id";

/**
 * Gives every request a fresh ULID as its request id and sends it back as X-Request-Id on every
 * response, errors included (the error renderer puts the same value in `request_id`).
 *
 * A request id the client sends is not echoed: the id is written into audit rows and
 * idempotency records (`details.original_request_id`), so it must be unique and the server's own.
 */
export function requestId(ids: IdSource): MiddlewareHandler<RestEnv> {
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
