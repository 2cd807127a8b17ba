import { ERROR_CATALOGUE } from "@agentq/core";
import type { Operation } from "@agentq/core";
import fc from "fast-check";
import { deflateSync, gzipSync } from "node:zlib";

/** One generated request. */
export interface RandomRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Uint8Array | null;
}

const headerText = fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 40 });
const segment = fc.oneof(
  fc.constantFrom("01JAAAAAAAAAAAAAAAAAAAAAAA", "x", "..", "%zz", "%2F", "ack", "get-pending", "send"),
  fc.string({ maxLength: 30 }).map((s) => encodeURIComponent(s)),
);

/** A JSON value of any shape, sometimes deep. */
const jsonValue = fc.oneof(
  { weight: 4, arbitrary: fc.jsonValue({ maxDepth: 4 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 200 }).map((n) => JSON.parse(`${"[".repeat(n)}${"]".repeat(n)}`) as unknown) },
);

/**
 * Requests aimed at `operations`' routes (their templates filled with random segments) and at
 * random paths, with random methods, credentials, content types, encodings, idempotency keys and
 * bodies (objects shaped like the operation's input, random JSON, text or bytes).
 */
export function randomRequests(operations: readonly Operation[], tokens: readonly string[]): fc.Arbitrary<RandomRequest> {
  const templates = operations.map((op) => op.http.path);
  const path = fc.oneof(
    { weight: 5, arbitrary: fc.tuple(fc.constantFrom(...templates), fc.array(segment, { minLength: 4, maxLength: 4 })).map(([t, segs]) => { let i = 0; return t.replace(/\{[^}]+\}/g, () => segs[i++] ?? "x"); }) },
    { weight: 1, arbitrary: fc.array(segment, { maxLength: 5 }).map((segs) => `/v1/${segs.join("/")}`) },
  );
  const query = fc.array(fc.tuple(fc.constantFrom("limit", "cursor", "state", "role", "wait", "x"), fc.oneof(fc.constantFrom("10", "-1", "abc", "1e3", "101", ""), fc.string({ maxLength: 20 }))), { maxLength: 3 })
    .map((pairs) => (pairs.length === 0 ? "" : `?${pairs.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join("&")}`));
  const fieldNames = [...new Set(operations.flatMap((op) => Object.keys(op.input.properties)))];
  const objectBody = fc.dictionary(fc.constantFrom(...fieldNames, "extra"), jsonValue, { maxKeys: 6 });
  const bodyValue = fc.oneof(
    { weight: 5, arbitrary: objectBody.map((o) => JSON.stringify(o)) },
    { weight: 2, arbitrary: jsonValue.map((v) => JSON.stringify(v)) },
    { weight: 1, arbitrary: fc.string({ maxLength: 50 }) },
    { weight: 1, arbitrary: fc.constant("") },
  ).map((text) => new TextEncoder().encode(text));
  const rawBytes = fc.uint8Array({ maxLength: 200 });
  const encoding = fc.constantFrom(undefined, undefined, undefined, "gzip", "deflate", "br", "identity", "compress", "GZIP");
  const body = fc.tuple(fc.oneof({ weight: 6, arbitrary: bodyValue }, { weight: 1, arbitrary: rawBytes }), encoding).map(([bytes, enc]) => ({ bytes: enc === "gzip" || enc === "GZIP" ? gzipSync(bytes) : enc === "deflate" ? deflateSync(bytes) : bytes, enc }));
  return fc.record({
    method: fc.constantFrom("GET", "POST", "POST", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"),
    path: fc.tuple(path, query).map(([p, q]) => p + q),
    auth: fc.oneof(fc.constantFrom(...tokens.map((t) => `Bearer ${t}`)), fc.constant(undefined), headerText),
    contentType: fc.oneof(fc.constantFrom("application/json", "application/json; charset=utf-8", undefined, "text/plain", "application/json; charset=latin1"), headerText),
    idempotencyKey: fc.oneof(fc.constant(undefined), headerText, fc.string({ minLength: 256, maxLength: 300, unit: fc.constant("k") })),
    requestId: fc.option(headerText),
    body: fc.option(body),
  }).map((r) => {
    const headers: Record<string, string> = {};
    if (r.auth !== undefined) headers.Authorization = r.auth;
    if (r.contentType !== undefined) headers["Content-Type"] = r.contentType;
    if (r.idempotencyKey !== undefined) headers["Idempotency-Key"] = r.idempotencyKey;
    if (r.requestId !== null) headers["X-Request-Id"] = r.requestId;
    if (r.body?.enc !== undefined) headers["Content-Encoding"] = r.body.enc;
    const canHaveBody = r.method !== "GET" && r.method !== "HEAD";
    return { method: r.method, path: r.path, headers, body: canHaveBody && r.body !== null ? r.body.bytes : null };
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
