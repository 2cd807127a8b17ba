/**
 * W3C Trace Context `traceparent` (https://www.w3.org/TR/trace-context/#traceparent-header):
 * `00-<32 hex trace id>-<16 hex parent id>-<2 hex flags>`, 55 characters. What a client sends
 * (the REST header, MCP `params._meta.traceparent`, the CLI's TRACEPARENT) is read with
 * `validTraceparent`: anything else, longer or malformed, is ignored as the specification says
 * (a new trace starts), never refused.
 */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The length of a version-00 traceparent. */
export const TRACEPARENT_LENGTH = 55;

/** A parsed traceparent. */
export interface TraceContextIds {
  traceId: string;
  spanId: string;
  /** The trace flags (bit 0: sampled). */
  flags: number;
}

/** The parts of a valid version-00 traceparent (all-zero ids are invalid), or null. Constant time in the input's length: longer input is refused before any match. */
export function parseTraceparent(value: unknown): TraceContextIds | null {
  if (typeof value !== "string" || value.length !== TRACEPARENT_LENGTH) return null;
  const m = TRACEPARENT.exec(value.toLowerCase());
  if (m === null) return null;
  const [, traceId, spanId, flags] = m as unknown as [string, string, string, string];
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return null;
  return { traceId, spanId, flags: Number.parseInt(flags, 16) };
}

/** The traceparent in its canonical (lower-case) form when valid, else null. */
export function validTraceparent(value: unknown): string | null {
  const ids = parseTraceparent(value);
  return ids === null ? null : formatTraceparent(ids);
}

/** `00-<trace id>-<span id>-<flags>`. */
export function formatTraceparent(ids: TraceContextIds): string {
  return `00-${ids.traceId}-${ids.spanId}-${(ids.flags & 0xff).toString(16).padStart(2, "0")}`;
}
