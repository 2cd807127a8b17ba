import { executeOperation, isDomainError, requestFingerprint, toErrorEnvelope } from "@agentq/core";
import { traceOperation, type EdgeTracing, type OperationTrace } from "@agentq/http";
import type { CoreDeps, ErrorEnvelope, OperationContext, Principal, RateLimitStatus } from "@agentq/core";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { restRequestOf } from "./rest-request.ts";
import type { ToolBinding } from "./tool-binding.ts";

/** Who is calling: the authenticated principal, or the error authentication ended with (e.g. SVC_FROZEN). */
export type ToolCaller = { kind: "principal"; principal: Principal } | { kind: "refused"; error: unknown };

/** Everything one tool call needs besides its arguments. */
export interface ToolCallContext {
  deps: CoreDeps;
  caller: ToolCaller;
  /** The request id of the HTTP request carrying the call (X-Request-Id). */
  requestId: string;
  /** Fresh Idempotency-Keys for calls of `required` operations that carry none. */
  newIdempotencyKey: () => string;
  signal?: AbortSignal;
  /** Told the caller's rate-limit state (tightest bucket) when the core counts the call. */
  onRateLimit?: (status: RateLimitStatus) => void;
  /** Told about errors that are not DomainErrors (server faults), for logging. */
  onUnexpectedError?: (error: unknown, requestId: string) => void;
  /** The messaging spans (`traceOperation`), when tracing is on. */
  tracing?: EdgeTracing;
  /** Where the call's trace comes from: the HTTP request's span and traceparent header, and the call's own `params._meta.traceparent`. */
  trace?: OperationTrace;
}

/** A successful tool result: the REST response body as structured content and as JSON text. */
export function toolSuccess(body: unknown): CallToolResult {
  const text = JSON.stringify(body ?? null);
  if (typeof body === "object" && body !== null && !Array.isArray(body)) {
    return { content: [{ type: "text", text }], structuredContent: body as Record<string, unknown> };
  }
  return { content: [{ type: "text", text }] };
}

/** `_meta` key carrying what REST sends as Retry-After (seconds), on retryable refusals. */
export const RETRY_AFTER_META_KEY = "agentq/retry_after_seconds";

/**
 * A failed tool result: `isError` with the REST error envelope as structured content, and the
 * Retry-After of REST in `_meta` when the refusal has one.
 */
export function toolFailure(envelope: ErrorEnvelope, retryAfterSeconds?: number): CallToolResult {
  return {
    isError: true,
    content: [{ type: "text", text: JSON.stringify(envelope) }],
    structuredContent: envelope as unknown as Record<string, unknown>,
    ...(retryAfterSeconds === undefined ? {} : { _meta: { [RETRY_AFTER_META_KEY]: retryAfterSeconds } }),
  };
}

/** Rewrites `details.errors[].path` of a malformed-request envelope into the tool's argument shape. */
function inToolShape(envelope: ErrorEnvelope, binding: ToolBinding): ErrorEnvelope {
  const errors = envelope.error.details?.["errors"];
  if (envelope.error.code !== "SVC_MALFORMED_REQUEST" || !Array.isArray(errors)) return envelope;
  const mapped = errors.map((e: unknown) =>
    typeof e === "object" && e !== null && typeof (e as { path?: unknown }).path === "string" ? { ...e, path: binding.toToolPath((e as { path: string }).path) } : e,
  );
  return { ...envelope, error: { ...envelope.error, details: { ...envelope.error.details, errors: mapped } } };
}

/**
 * Runs one tool call through the operation catalogue, exactly as the REST edge runs the
 * equivalent request (authorize, Idempotency-Key rule, input validation, handler), and turns the
 * outcome into a tool result. Never throws: every failure, bad arguments included, is an
 * `isError` result carrying the REST error envelope with the same SVC_ code; an unexpected
 * fault is reported as SVC_SERVICE_UNAVAILABLE without its message.
 */
export async function callTool(binding: ToolBinding, args: Record<string, unknown>, cx: ToolCallContext): Promise<CallToolResult> {
  try {
    if (cx.caller.kind === "refused") throw cx.caller.error;
    const call = binding.toOperationCall(args, cx.newIdempotencyKey);
    const ctx: OperationContext = {
      principal: cx.caller.principal,
      requestId: cx.requestId,
      idempotencyKey: call.idempotencyKey,
      fingerprint: requestFingerprint(restRequestOf(binding.operation, call.input)),
      // A getter: the signal is read only by an operation that waits (a long-polling claim).
      get signal() {
        return cx.signal;
      },
      ...(cx.onRateLimit === undefined ? {} : { onRateLimit: cx.onRateLimit }),
    };
    const trace = cx.trace;
    const result =
      cx.tracing === undefined && (trace === undefined || (trace.headerTraceparent == null && trace.callTraceparent == null))
        ? await executeOperation(cx.deps, binding.operation, ctx, call.input)
        : await traceOperation(cx.tracing, binding.operation, ctx, call.input, trace ?? {}, (traced) => executeOperation(cx.deps, binding.operation, traced, call.input));
    return toolSuccess(result.body);
  } catch (e) {
    if (!isDomainError(e)) cx.onUnexpectedError?.(e, cx.requestId);
    return toolFailure(inToolShape(toErrorEnvelope(e, cx.requestId), binding), isDomainError(e) ? e.retryAfterSeconds : undefined);
  }
}
