// The HTTP edge shared by the Hono apps (apps/rest, apps/mcp, apps/oauth and apps/dashboard): what
// they must do the same way, and none may import from another.
export { accessLog, type ServedRequest } from "./access-log.ts";
export { afterAnswerWorkLoggedTo, createAfterAnswerWork, failureReason, type AfterAnswerLabel, type AfterAnswerWork } from "./after-answer-work.ts";
// The anonymous requests that answer before their work (DESIGN §2c), one path for REST and the dashboard.
export { closeAfterUnreadBody, type UnreadBodyDrainLimits } from "./close-after-unread-body.ts";
export { bearerChallenge } from "./bearer-challenge.ts";
export { refuseUnsafeQuery } from "./unsafe-query.ts";
export { useEdgeMiddleware, type EdgeMiddlewareOptions } from "./edge-middleware.ts";
// The one way an agentq HTTP server listens: with the keep-alive and headers timeouts of DESIGN §2c.
export { HEADERS_TIMEOUT_MS, KEEP_ALIVE_TIMEOUT_MS, listenHttp, type HttpListener, type ServedFetch } from "./listen-http.ts";
// The origin check (REST, the dashboard, /mcp) and people's sessions at the HTTP edge: cookies, where a request came from.
export { changesState, checkCookieWrite, csrfRejected, fromOwnOrigin, publicOriginOf, refuseForeignOrigin } from "./session/csrf.ts";
export { clearCookieHeader, readCookie, sessionCookies, setCookieHeader, type SessionCookies } from "./session/session-cookie.ts";
export { DEFAULT_ORIGIN_SETTINGS, requestOrigin, trustedProxyMatcher, type OriginSettings } from "./session/request-origin.ts";
export { createSessionEdge, type SessionEdge } from "./session/session-edge.ts";
export { sessionIntentCookies } from "./session/session-intent.ts";
export { httpOperationContext, type OperationCallFields } from "./session/http-operation-context.ts";
// The edge every app composes (STYLE: written once, never copied): the request id, the error
// envelope and the fault log, the 404/405 answer, and request bodies read with the limits.
export { REQUEST_ID_HEADER, requestId, type EdgeEnv } from "./request-id.ts";
export { errorEnvelopeResponse, errorHandler, reportFaultTo, routeNotFound, type ErrorHeaders, type FaultLogger } from "./error-envelope.ts";
export { RouteTable, pathParameterNames, toHonoPath } from "./route-table.ts";
export { MAX_BODY_BYTES, MAX_COMPRESSED_BODY_BYTES, MAX_JSON_DEPTH } from "./body/limits.ts";
export { readBodyBytes, type BodyLimits, type BodyStream, type NodeBody } from "./body/read-body-bytes.ts";
export { decodeUtf8, nodeBodyOf, readRequestBytes, readRequestText, REQUEST_BODY_LIMITS } from "./body/read-body.ts";
export { readJsonBody } from "./body/read-json-body.ts";
export { readFormFields, type FormFields } from "./body/read-form-body.ts";
export { assertJsonDepth } from "./body/json-depth.ts";
// Tracing at the edge (DESIGN §2c Telemetry): the request span, the messaging spans, the trace context.
export { contextOf, traceparentOf, traceRequests, type EdgeTracing, type TraceEnv } from "./tracing/edge-tracing.ts";
export { traceOperation, type OperationTrace } from "./tracing/messaging-spans.ts";
export type { Context as TraceContext } from "@opentelemetry/api";
