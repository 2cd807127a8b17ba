/** The answer to one HTTP call: a response (any status), or a network error / timeout. */
export type CallResult = { kind: "response"; status: number; body: Record<string, unknown> | null; code: string | null } | { kind: "network"; error: string };

/** Whether a result may be retried as is: a network error, a 5xx, or a 429. */
export function isRetryable(r: CallResult): boolean {
  return r.kind === "network" || r.status >= 500 || r.status === 429;
}

/** A short label of a result for the history: "2xx", the SVC_ code, "http <status>" or "network". */
export function resultLabel(r: CallResult): string {
  if (r.kind === "network") return "network";
  if (r.status < 300) return "ok";
  return r.code ?? `http ${r.status}`;
}

/** One REST call to 127.0.0.1 with a bearer token and a hard timeout. Never throws. */
export async function callRest(p: { baseUrl: string; token: string; method: string; path: string; body?: unknown; headers?: Record<string, string>; timeoutMs: number }): Promise<CallResult> {
  try {
    const res = await fetch(`${p.baseUrl}${p.path}`, {
      method: p.method,
      headers: { Authorization: `Bearer ${p.token}`, ...(p.body === undefined ? {} : { "Content-Type": "application/json" }), ...(p.headers ?? {}) },
      ...(p.body === undefined ? {} : { body: JSON.stringify(p.body) }),
      signal: AbortSignal.timeout(p.timeoutMs),
    });
    const text = await res.text();
    let body: Record<string, unknown> | null = null;
    try {
      body = JSON.parse(text) as Record<string, unknown>;
    } catch {
      body = null;
    }
    const error = body?.error as { code?: unknown } | undefined;
    return { kind: "response", status: res.status, body, code: typeof error?.code === "string" ? error.code : null };
  } catch (e) {
    return { kind: "network", error: e instanceof Error ? `${e.name}: ${e.message}` : String(e) };
  }
}
