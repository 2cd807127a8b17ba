import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace, TraceFlags, type Context, type Span, type Tracer } from "@opentelemetry/api";
import type { MiddlewareHandler } from "hono";
import { answeringRoute } from "../access-log.ts";
import { formatTraceparent, parseTraceparent, validTraceparent } from "@agentq/core";

/**
 * The edges' tracing (DESIGN §2c Telemetry), given only when OTLP export is configured: the
 * composition root makes the tracer (runtime's SDK set-up); without it the apps register no
 * middleware and start no span, so tracing off costs a request nothing but reading a header.
 */
export interface EdgeTracing {
  readonly tracer: Tracer;
}

/** The Hono variable holding the request's span context (its HTTP span), for the spans under it. */
export interface TraceEnv {
  Variables: { traceContext?: Context };
}

/** The context a traceparent names (a remote parent), or `base` when it names none. */
export function contextOf(traceparent: string | null, base: Context = ROOT_CONTEXT): Context {
  const ids = traceparent === null ? null : parseTraceparent(traceparent);
  if (ids === null) return base;
  return trace.setSpanContext(base, { traceId: ids.traceId, spanId: ids.spanId, traceFlags: ids.flags, isRemote: true });
}

/** The traceparent of a span (what is stored with a message and handed on). */
export function traceparentOf(span: Span): string {
  const sc = span.spanContext();
  return formatTraceparent({ traceId: sc.traceId, spanId: sc.spanId, flags: sc.traceFlags & TraceFlags.SAMPLED });
}

/**
 * One SERVER span per request (HTTP semantic conventions: `http.request.method`, `url.path`,
 * `http.route`, `http.response.status_code`; named `METHOD route`), the child of the request's
 * `traceparent` header when it carries a valid one. Register it first, beside the access log.
 */
export function traceRequests(tracing: EdgeTracing): MiddlewareHandler<TraceEnv> {
  return async (c, next) => {
    const method = c.req.method;
    const parent = contextOf(validTraceparent(c.req.header("traceparent")));
    const span = tracing.tracer.startSpan(method, { kind: SpanKind.SERVER, attributes: { "http.request.method": method, "url.path": c.req.path } }, parent);
    c.set("traceContext", trace.setSpan(parent, span));
    try {
      await next();
    } finally {
      const route = answeringRoute(c);
      if (route !== null) {
        span.updateName(`${method} ${route}`);
        span.setAttribute("http.route", route);
      }
      span.setAttribute("http.response.status_code", c.res.status);
      if (c.res.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
}
