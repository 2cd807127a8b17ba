import { trace } from "@opentelemetry/api";
import { findOperation, type OperationContext, type OperationResult } from "@agentq/core";
import { describe, expect, it } from "vitest";
import { traceOperation } from "./messaging-spans.ts";

// A traced call must not read the context's lazy fields: under @hono/node-server the abort signal
// builds a whole web Request per call, and the cookies are parsed when read. An object spread of
// the context read them all, which cost a third of the send rate with tracing on (bench scenario T).
function lazyContext(reads: string[]): OperationContext {
  return {
    principal: {} as OperationContext["principal"],
    requestId: "req",
    idempotencyKey: null,
    fingerprint: "",
    get signal() {
      reads.push("signal");
      return new AbortController().signal;
    },
    get sessionToken() {
      reads.push("sessionToken");
      return null;
    },
  };
}

const answered: OperationResult = { status: 201, body: { message_id: "m1" } };
const cases = [
  { op: "send", tracing: { tracer: trace.getTracer("test") }, traceparent: null },
  { op: "send", tracing: undefined, traceparent: "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01" },
  { op: "ack", tracing: { tracer: trace.getTracer("test") }, traceparent: null },
] as const;

describe("traceOperation", () => {
  for (const c of cases) {
    it(`${c.op}, tracing ${c.tracing === undefined ? "off with a traceparent" : "on"}: hands on a context whose lazy fields are unread and still readable`, async () => {
      const op = findOperation(c.op);
      if (op === undefined) throw new Error(`no operation ${c.op}`);
      const reads: string[] = [];
      let seen: OperationContext | undefined;
      await traceOperation(c.tracing, op, lazyContext(reads), {}, { headerTraceparent: c.traceparent }, async (ctx) => {
        seen = ctx;
        return answered;
      });
      expect(reads).toEqual([]);
      expect(seen?.requestId).toBe("req");
      if (c.op === "send") expect(seen?.traceparent).toMatch(/^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$/);
      if (c.op === "ack") expect(typeof seen?.onMessageSettled).toBe("function");
      expect(seen?.signal).toBeInstanceOf(AbortSignal);
      expect(reads).toEqual(["signal"]);
    });
  }
});
