import { ERROR_CATALOGUE } from "@agentq/core";
import type { Operation } from "@agentq/core";
import fc from "fast-check";
import { brotliCompressSync, constants, deflateSync, gzipSync } from "node:zlib";

/** Values of the world under test that make random requests reach deeper than validation. */
export interface RequestSeeds {
  /** Path segments to use besides random ones (existing message ids, template names). */
  segments?: readonly string[];
  /** Strings to use as JSON values (lease ids, durations, friendly names). */
  strings?: readonly string[];
  /** Valid request bodies, sent as is or with one field replaced or removed. */
  bodies?: readonly Record<string, unknown>[];
}

// A deep copy of `value` with the field chosen by `path` (indexes into the keys at each level)
// replaced by `replacement`, or removed when it is null.
function mutate(value: Record<string, unknown>, path: readonly number[], replacement: unknown): Record<string, unknown> {
  const copy = structuredClone(value);
  let node: Record<string, unknown> = copy;
  for (let i = 0; i < path.length; i++) {
    const keys = Object.keys(node);
    if (keys.length === 0) break;
    const key = keys[(path[i] ?? 0) % keys.length] ?? "";
    const child = node[key];
    if (i === path.length - 1 || typeof child !== "object" || child === null || Array.isArray(child)) {
      if (replacement === null) delete node[key];
      else node[key] = replacement;
      break;
    }
    node = child as Record<string, unknown>;
  }
  return copy;
}

function compress(bytes: Uint8Array, encoding: string | undefined): Uint8Array {
  switch (encoding?.toLowerCase()) {
    case "gzip":
      return gzipSync(bytes);
    case "deflate":
      return deflateSync(bytes);
    case "br":
      return brotliCompressSync(bytes, { params: { [constants.BROTLI_PARAM_QUALITY]: 1 } });
    default:
      return bytes;
  }
}

/** One generated request. */
export interface RandomRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Uint8Array | null;
}

const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 });
const anySegment = fc.oneof(
  fc.constantFrom("01JAAAAAAAAAAAAAAAAAAAAAAA", "x", "..", "%zz", "%2F", "ack", "get-pending", "send"),
  fc.string({ maxLength: 30 }).map((s) => encodeURIComponent(s)),
);

// Bodies just under and over the 256 KB limit, built once (generating them per run is slow).
const OVERSIZED_BODIES = [250, 257, 300].map((kb) => new TextEncoder().encode(JSON.stringify({ text: "x".repeat(kb * 1024) })));

/** A JSON value of any shape, sometimes deep. */
const anyJsonValue = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 200 }).map((n) => JSON.parse(`${"[".repeat(n)}${"]".repeat(n)}`) as unknown) },
);

/**
 * Requests aimed at `operations`' routes (their templates filled with random segments) and at
 * random paths, with random methods, credentials, content types, encodings, idempotency keys and
 * bodies (objects shaped like the operation's input, random JSON, text or bytes).
 */
export function randomRequests(operations: readonly Operation[], tokens: readonly string[], seeds: RequestSeeds = {}): fc.Arbitrary<RandomRequest> {
  const seedSegments = seeds.segments ?? [];
  const segment = seedSegments.length === 0 ? anySegment : fc.oneof(anySegment, fc.constantFrom(...seedSegments));
  const seedStrings = [...(seeds.strings ?? []), ...seedSegments];
  const jsonValue = seedStrings.length === 0 ? anyJsonValue : fc.oneof({ weight: 3, arbitrary: anyJsonValue }, { weight: 1, arbitrary: fc.constantFrom(...seedStrings) });
  const fill = (template: string) => fc.array(segment, { minLength: 4, maxLength: 4 }).map((segs) => {
    let i = 0;
    return template.replace(/\{[^}]+\}/g, () => segs[i++] ?? "x");
  });
  const anyMethod = fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS");
  // Mostly an operation's own method and path, sometimes another method or a random path.
  const route = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...operations).chain((op) => fc.record({ method: fc.oneof({ weight: 6, arbitrary: fc.constant<string>(op.http.method) }, { weight: 1, arbitrary: anyMethod }), path: fill(op.http.path) })) },
    { weight: 1, arbitrary: fc.record({ method: anyMethod, path: fc.array(segment, { maxLength: 5 }).map((segs) => `/v1/${segs.join("/")}`) }) },
  );
  const query = fc.array(fc.tuple(fc.constantFrom("limit", "cursor", "state", "role", "wait", "x"), fc.oneof(fc.constantFrom("10", "-1", "abc", "1e3", "101", ""), fc.string({ maxLength: 20 }))), { maxLength: 3 })
    .map((pairs) => (pairs.length === 0 ? "" : `?${pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&")}`));
  const fieldNames = [...new Set(operations.flatMap((op) => Object.keys(op.input.properties)))];
  const objectBody = fc.dictionary(fc.constantFrom(...fieldNames, "extra"), jsonValue, { maxKeys: 6 });
  const samples = seeds.bodies ?? [];
  // A sample body (a valid request) with one field replaced or removed at some depth.
  const mutatedSample = samples.length === 0 ? objectBody : fc.tuple(fc.constantFrom(...samples), fc.array(fc.nat(), { maxLength: 3 }), fc.option(jsonValue)).map(([sample, path, replacement]) => (path.length === 0 ? sample : mutate(sample, path, replacement)));
  const bodyValue = fc.oneof(
    { weight: 3, arbitrary: objectBody.map((o) => JSON.stringify(o)) },
    { weight: 3, arbitrary: mutatedSample.map((o) => JSON.stringify(o)) },
    { weight: 2, arbitrary: jsonValue.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 50 }) },
    { weight: 1, arbitrary: fc.constant("") },
  ).map((text) => new TextEncoder().encode(text));
  const bodyBytes = fc.oneof({ weight: 11, arbitrary: bodyValue }, { weight: 1, arbitrary: fc.constantFrom(...OVERSIZED_BODIES) });
  const rawBytes = fc.uint8Array({ maxLength: 200 });
  const encoding = fc.oneof({ weight: 6, arbitrary: fc.constant(undefined) }, { weight: 3, arbitrary: fc.constantFrom("gzip", "deflate", "br", "identity", "compress", "GZIP") });
  const body = fc.tuple(fc.oneof({ weight: 6, arbitrary: bodyBytes }, { weight: 1, arbitrary: rawBytes }), encoding).map(([bytes, enc]) => ({ bytes: compress(bytes, enc), enc }));
  return fc.record({
    route,
    query,
    auth: fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...tokens.map((t) => `Bearer ${t}`)) }, { weight: 1, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: headerText }),
    contentType: fc.oneof({ weight: 8, arbitrary: fc.constantFrom("application/json", "application/json; charset=utf-8") }, { weight: 2, arbitrary: fc.constantFrom(undefined, "text/plain", "application/json; charset=latin1") }, { weight: 1, arbitrary: headerText }),
    idempotencyKey: fc.oneof(fc.constant(undefined), headerText, fc.string({ minLength: 256, maxLength: 300, unit: fc.constant("k") })),
    requestId: fc.option(headerText),
    body: fc.option(body, { freq: 8 }),
  }).map((r) => {
    const headers: Record<string, string> = {};
    if (r.auth !== undefined) headers.Authorization = r.auth;
    if (r.contentType !== undefined) headers["Content-Type"] = r.contentType;
    if (r.idempotencyKey !== undefined) headers["Idempotency-Key"] = r.idempotencyKey;
    if (r.requestId !== null) headers["X-Request-Id"] = r.requestId;
    if (r.body?.enc !== undefined) headers["Content-Encoding"] = r.body.enc;
    const method = r.route.method;
    const canHaveBody = method !== "GET" && method !== "HEAD";
    return { method, path: r.route.path + r.query, headers, body: canHaveBody && r.body !== null ? r.body.bytes : null };
  });
}

/**
 * Checks one response against the conventions: never a server fault (5xx), every error in the
 * envelope with a catalogue code, request_id equal to X-Request-Id, and Cache-Control: no-store.
 * Returns a description of the first violation, or null.
 */
export async function conventionViolation(req: RandomRequest, res: Response): Promise<string | null> {
  const requestId = res.headers.get("x-request-id");
  if (requestId === null) return "no X-Request-Id";
  if (res.status >= 500) return `status ${res.status}: ${await res.text()}`;
  if (req.method === "HEAD") return null;
  // A success of an operation with a text body (a checkpoint note) is text/plain by design.
  if (res.status < 400 && (res.headers.get("content-type") ?? "").startsWith("text/plain")) return null;
  const text = await res.text();
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return `body is not JSON: ${text.slice(0, 100)}`;
  }
  if (res.status < 400) return null;
  const env = body as { error?: { code?: unknown; message?: unknown }; request_id?: unknown };
  if (typeof env.error?.code !== "string" || !(env.error.code in ERROR_CATALOGUE)) return `not an envelope: ${text.slice(0, 200)}`;
  if (typeof env.error.message !== "string") return "envelope without message";
  if (ERROR_CATALOGUE[env.error.code as keyof typeof ERROR_CATALOGUE].status !== res.status) return `status ${res.status} does not match ${env.error.code}`;
  if (env.request_id !== requestId) return "request_id differs from X-Request-Id";
  if (res.headers.get("cache-control") !== "no-store") return "error without Cache-Control: no-store";
  return null;
}
