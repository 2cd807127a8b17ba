import type { Operation } from "@agentq/core";

/** A syntactically valid ULID that names nothing, for path parameters of refusal tests. */
export const NOWHERE_ULID = "01JZZZZZZZZZZZZZZZZZZZZZZZ";

/**
 * Whatever answers requests in process: a Hono app (`app.request`) or the composed server
 * (`{ request: (path, init) => service.fetch(new Request(base + path, init)) }`).
 */
export interface RequestClient {
  request(path: string, init: RequestInit): Response | Promise<Response>;
}

/** What `matrixCall` returns: the status, the raw text, the parsed JSON (when the answer is JSON) and the headers. */
export interface MatrixResult {
  status: number;
  text: string;
  body: any;
  headers: Headers;
}

/**
 * One request: `authorization` is the full header value, `headers` more of them (a person's
 * session cookie and Origin), `body` is sent as JSON, `key` as Idempotency-Key.
 */
export async function matrixCall(client: RequestClient, method: string, path: string, p: { authorization?: string; headers?: Readonly<Record<string, string>>; body?: unknown; key?: string } = {}): Promise<MatrixResult> {
  const headers: Record<string, string> = { ...p.headers };
  if (p.authorization !== undefined) headers.Authorization = p.authorization;
  if (p.key !== undefined) headers["Idempotency-Key"] = p.key;
  if (p.body !== undefined) headers["Content-Type"] = "application/json";
  const res = await client.request(path, { method, headers, ...(p.body === undefined ? {} : { body: JSON.stringify(p.body) }) });
  const text = await res.text();
  // A text answer (an operation's `http.textBody`, such as a checkpoint note) has no JSON to parse.
  const json = (res.headers.get("content-type") ?? "").startsWith("application/json");
  return { status: res.status, text, body: text === "" || !json ? undefined : JSON.parse(text), headers: res.headers };
}

/** The `{name}` path parameters of an operation's route, in order. */
export function pathParamsOf(op: Operation): string[] {
  return [...op.http.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? "");
}

/** The operation's path with every `{param}` replaced by `values[param]` (URL-encoded). */
export function fillPath(op: Operation, values: Readonly<Record<string, string>>): string {
  return op.http.path.replace(/\{([^}]+)\}/g, (_m, name: string) => {
    const value = values[name];
    if (value === undefined) throw new Error(`no value for path parameter {${name}} of ${op.name}`);
    return encodeURIComponent(value);
  });
}

/** Whether the route reads a JSON body (the REST edge reads one for POST, PUT and PATCH). */
export function hasBody(op: Operation): boolean {
  return op.http.method === "POST" || op.http.method === "PUT" || op.http.method === "PATCH";
}

let keyCounter = 0;

/**
 * Calls `op`'s route: path parameters from `pathValues`, `input` split into the query string
 * (the operation's declared query names) and the JSON body (anything else, for body methods;
 * `{}` when there is none), a fresh Idempotency-Key when the operation honours one.
 */
export function callOperationRoute(
  client: RequestClient,
  op: Operation,
  p: { authorization?: string; headers?: Readonly<Record<string, string>>; pathValues?: Readonly<Record<string, string>>; input?: Readonly<Record<string, unknown>> },
): Promise<MatrixResult> {
  const params = new Set(pathParamsOf(op));
  const queryNames = new Set(op.http.query ?? []);
  const query = new URLSearchParams();
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(p.input ?? {})) {
    if (params.has(k)) continue;
    if (queryNames.has(k)) query.set(k, String(v));
    else body[k] = v;
  }
  const qs = query.toString();
  const path = fillPath(op, p.pathValues ?? {}) + (qs === "" ? "" : `?${qs}`);
  return matrixCall(client, op.http.method, path, {
    ...(p.authorization === undefined ? {} : { authorization: p.authorization }),
    ...(p.headers === undefined ? {} : { headers: p.headers }),
    ...(op.idempotency === "none" ? {} : { key: `matrix-${++keyCounter}` }),
    ...(hasBody(op) ? { body } : {}),
  });
}
