/** A JSON body of the REST API, read loosely by tests. */
export type Json = Record<string, any>;

/** A caller of `baseUrl`'s REST API with a bearer token: a JSON body, a fresh Idempotency-Key each call; the status and the parsed answer. */
export function bearerRest(baseUrl: string): (token: string, method: string, path: string, body?: unknown) => Promise<{ status: number; body: Json }> {
  return async (token, method, path, body) => {
    const res = await fetch(`${baseUrl}${path}`, { method, headers: { Authorization: `Bearer ${token}`, "Content-Type": "application/json", "Idempotency-Key": crypto.randomUUID() }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    const text = await res.text();
    return { status: res.status, body: (text === "" ? {} : JSON.parse(text)) as Json };
  };
}
