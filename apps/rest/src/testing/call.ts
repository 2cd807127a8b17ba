import type { Hono } from "hono";
import type { RestEnv } from "../rest-env.ts";

/** What `call` returns: the status, the raw text, the parsed JSON (when any) and the headers. */
export interface CallResult<T = any> {
  status: number;
  text: string;
  body: T;
  headers: Headers;
}

/**
 * One in-process request to the app: `authorization` is the full header value, `body` is sent
 * as JSON, `key` as Idempotency-Key.
 */
export async function call(app: Hono<RestEnv>, method: string, path: string, p: { authorization?: string; body?: unknown; key?: string; headers?: Record<string, string> } = {}): Promise<CallResult> {
  const headers: Record<string, string> = { ...p.headers };
  if (p.authorization !== undefined) headers.Authorization = p.authorization;
  if (p.key !== undefined) headers["Idempotency-Key"] = p.key;
  let body: string | undefined;
  if (p.body !== undefined) {
    headers["Content-Type"] ??= "application/json";
    body = JSON.stringify(p.body);
  }
  const res = await app.request(path, { method, headers, body });
  const text = await res.text();
  return { status: res.status, text, body: text === "" ? undefined : JSON.parse(text), headers: res.headers };
}
