import type { IdSource } from "@agentq/core";
import type { Env, Hono } from "hono";
import { accessLog, type ServedRequest } from "./access-log.ts";
import { closeAfterUnreadBody } from "./close-after-unread-body.ts";
import { requestId } from "./request-id.ts";
import { traceRequests, type EdgeTracing } from "./tracing/edge-tracing.ts";
import { refuseUnsafeQuery } from "./unsafe-query.ts";

/** What `useEdgeMiddleware` needs of an app's options. */
export interface EdgeMiddlewareOptions {
  /** Where request ids come from (ULIDs). */
  ids: IdSource;
  /** The request spans, when OTLP export is configured. */
  tracing?: EdgeTracing | undefined;
  /** Told of every request answered (the access log), when given. */
  onRequestServed?: ((entry: ServedRequest) => void) | undefined;
}

/**
 * Registers the middleware an API app (REST, MCP, OAuth) runs before anything else, in this
 * order: the request's span, the access log, closing the connection of a request whose body was
 * left unread, the request id, and the refusal of an unsafe query string.
 */
export function useEdgeMiddleware<E extends Env>(app: Hono<E>, options: EdgeMiddlewareOptions): void {
  if (options.tracing !== undefined) app.use("*", traceRequests(options.tracing));
  if (options.onRequestServed !== undefined) app.use("*", accessLog(options.onRequestServed));
  app.use("*", closeAfterUnreadBody());
  app.use("*", requestId(options.ids));
  app.use("*", refuseUnsafeQuery());
}
