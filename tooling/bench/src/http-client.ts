import { Pool } from "undici";

/** A JSON answer of the service. */
export interface JsonAnswer {
  status: number;
  body: Record<string, unknown>;
}

/** A keep-alive HTTP client of the service (an undici pool of `connections` sockets to 127.0.0.1). */
export interface ApiClient {
  call(token: string, method: "GET" | "POST", path: string, body?: unknown, headers?: Record<string, string>, signal?: AbortSignal): Promise<JsonAnswer>;
  close(): Promise<void>;
  /** The request waiting longest for its answer now ("POST /v1/messages/ack, 12.3 s"), or null. */
  oldestInFlight(): string | null;
}

/** Opens a pool of `connections` keep-alive connections to `baseUrl` (which must be loopback). */
export function apiClient(baseUrl: string, connections: number): ApiClient {
  const origin = new URL(baseUrl);
  if (origin.hostname !== "127.0.0.1") throw new Error(`the benchmark only talks to 127.0.0.1, not ${origin.hostname}`);
  const pool = new Pool(origin.origin, { connections, pipelining: 1, keepAliveTimeout: 60_000, headersTimeout: 60_000, bodyTimeout: 60_000 });
  const inFlight = new Set<{ what: string; since: number }>();
  const request = async (token: string, method: "GET" | "POST", path: string, body: unknown, headers: Record<string, string>, signal: AbortSignal | undefined): Promise<JsonAnswer> => {
    const res = await pool.request({
      method,
      path,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      ...(signal === undefined ? {} : { signal }),
    });
    const text = await res.body.text();
    let parsed: Record<string, unknown> = {};
    try {
      parsed = text.length > 0 ? (JSON.parse(text) as Record<string, unknown>) : {};
    } catch {
      parsed = { raw: text };
    }
    return { status: res.statusCode, body: parsed };
  };
  return {
    async call(token, method, path, body, headers = {}, signal) {
      const entry = { what: `${method} ${path}`, since: performance.now() };
      inFlight.add(entry);
      try {
        return await request(token, method, path, body, headers, signal);
      } finally {
        inFlight.delete(entry);
      }
    },
    close: () => pool.close(),
    oldestInFlight() {
      let oldest: { what: string; since: number } | null = null;
      for (const e of inFlight) if (oldest === null || e.since < oldest.since) oldest = e;
      return oldest === null ? null : `${oldest.what}, ${((performance.now() - oldest.since) / 1000).toFixed(1)} s`;
    },
  };
}

/** Throws unless the answer has the expected status (the error code in the message). */
export function expectStatus(answer: JsonAnswer, status: number, what: string): JsonAnswer {
  if (answer.status !== status) {
    const error = answer.body.error as { code?: string; message?: string } | undefined;
    throw new Error(`${what}: HTTP ${answer.status} ${error?.code ?? ""} ${error?.message ?? JSON.stringify(answer.body).slice(0, 300)}`);
  }
  return answer;
}
