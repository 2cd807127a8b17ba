import { SpanKind, SpanStatusCode, trace, type Attributes, type Context, type Link, type Span } from "@opentelemetry/api";
import { isDomainError, withContext, type Operation, type OperationContext, type OperationResult } from "@agentq/core";
import { contextOf, traceparentOf, type EdgeTracing } from "./edge-tracing.ts";

/** Operations that settle a message (the messaging conventions' `settle`). */
const SETTLES: ReadonlySet<string> = new Set(["ack", "ack_batch", "nack", "hand_off"]);

/** The messaging system's name in `messaging.system`. */
const SYSTEM = "agentq";

/** Where a traced operation's trace comes from. */
export interface OperationTrace {
  /** The request's HTTP span context (`traceRequests`), when tracing is on. */
  requestContext?: Context | undefined;
  /** A traceparent the call itself carries (MCP `params._meta.traceparent`), valid or null; it wins over the request's. */
  callTraceparent?: string | null;
  /** The request's own `traceparent` header, valid or null (stored as is when tracing is off). */
  headerTraceparent?: string | null;
}

/**
 * Runs an operation under the messaging spans of the semantic conventions (`messaging.system`
 * `agentq`): a PRODUCER `send` span whose traceparent is what the send stores with the message
 * (so every later span of that message is in the sender's trace); for `get_pending`, a CONSUMER
 * `receive` span per claimed item, the child of the traceparent the message carries; for ack,
 * ack_batch, nack and hand_off, a `settle` span per settled message, the child of its
 * traceparent too (redeliveries after a nack or an expired lease carry the same one). Each
 * messaging span links to the request's HTTP span. Without `tracing` nothing is started: the
 * call's or the header's traceparent is stored with a send as it came.
 */
export async function traceOperation(tracing: EdgeTracing | undefined, op: Operation, ctx: OperationContext, input: unknown, from: OperationTrace, run: (ctx: OperationContext) => Promise<OperationResult>): Promise<OperationResult> {
  const incoming = from.callTraceparent ?? from.headerTraceparent ?? null;
  if (tracing === undefined) return run(incoming === null || op.name !== "send" ? ctx : withContext(ctx, { traceparent: incoming }));
  const request = from.requestContext;
  const links: Link[] = request === undefined ? [] : linkTo(request);
  if (op.name === "send") {
    const parent = from.callTraceparent != null ? contextOf(from.callTraceparent) : (request ?? contextOf(incoming));
    const destination = recipientOf(input);
    const span = tracing.tracer.startSpan(`send ${destination ?? ""}`.trim(), { kind: SpanKind.PRODUCER, attributes: messagingAttributes("send", "send", destination) }, parent);
    return ended(span, async () => {
      const result = await run(withContext(ctx, { traceparent: traceparentOf(span) }));
      const id = (result.body as { message_id?: unknown } | null)?.message_id;
      if (typeof id === "string") span.setAttribute("messaging.message.id", id);
      return result;
    });
  }
  if (op.name === "get_pending") {
    const result = await run(ctx);
    const items = (result.body as { items?: { envelope?: { message_id?: string; traceparent?: string | null; recipient?: { friendly_name?: string } } }[] } | null)?.items ?? [];
    for (const item of items) {
      const e = item.envelope ?? {};
      const parent = contextOf(e.traceparent ?? null, request);
      const span = tracing.tracer.startSpan(`receive ${e.recipient?.friendly_name ?? ""}`.trim(), { kind: SpanKind.CONSUMER, attributes: { ...messagingAttributes("receive", "get_pending", e.recipient?.friendly_name ?? null), ...(e.message_id === undefined ? {} : { "messaging.message.id": e.message_id }) }, links }, parent);
      span.end();
    }
    return result;
  }
  if (SETTLES.has(op.name)) {
    return run(
      withContext(ctx, {
        onMessageSettled: (m) => {
          const span = tracing.tracer.startSpan(`${op.name} ${m.recipientName}`, { kind: SpanKind.CLIENT, attributes: { ...messagingAttributes("settle", op.name, m.recipientName), "messaging.message.id": m.messageId }, links }, contextOf(m.traceparent, request));
          span.end();
        },
      }),
    );
  }
  return run(ctx);
}

function messagingAttributes(type: "send" | "receive" | "settle", name: string, destination: string | null): Attributes {
  return { "messaging.system": SYSTEM, "messaging.operation.type": type, "messaging.operation.name": name, ...(destination === null ? {} : { "messaging.destination.name": destination }) };
}

/** The recipient's name of a send's input, bounded (the input is not validated yet). */
function recipientOf(input: unknown): string | null {
  const name = (input as { envelope?: { recipient?: { friendly_name?: unknown } } } | null)?.envelope?.recipient?.friendly_name;
  return typeof name === "string" ? name.slice(0, 64) : null;
}

function linkTo(request: Context): Link[] {
  const span = trace.getSpan(request);
  return span === undefined ? [] : [{ context: span.spanContext() }];
}

/** Runs `fn` and ends `span`, marked as an error when `fn` threw anything but a client's refusal. */
async function ended<T>(span: Span, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (isDomainError(e)) span.setAttribute("error.type", e.code);
    else span.setStatus({ code: SpanStatusCode.ERROR });
    throw e;
  } finally {
    span.end();
  }
}
