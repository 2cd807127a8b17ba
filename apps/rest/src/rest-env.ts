import type { Principal } from "@agentq/core";
import type { TraceContext } from "@agentq/http";

/** The Hono environment of the REST app: per-request variables set by its middleware. */
export interface RestEnv {
  Variables: {
    /** The request id (a ULID), sent back as X-Request-Id and in every error envelope. */
    requestId: string;
    /** The authenticated caller, once a route has authenticated it (for the access log). */
    principal?: Principal;
    /** The request's HTTP span context, when tracing is on (`traceRequests`). */
    traceContext?: TraceContext;
  };
}
