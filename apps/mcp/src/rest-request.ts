import type { HttpMethod, Operation } from "@agentq/core";
import { pathParameterNames } from "@agentq/http";

/** The REST request an operation call stands for: what its idempotency fingerprint covers. */
export interface RestRequest {
  method: HttpMethod;
  /** The concrete path, path parameters filled in, without the query string. */
  path: string;
  /** The JSON body REST would carry (null for GET and DELETE). */
  body: unknown;
}

/** A path parameter of an OpenAPI-style path, as @agentq/http's route table reads them. */
const PATH_PARAMETER = /\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * The REST request equivalent to calling `op` with `input` (an operation's input holds body,
 * query and path fields side by side): the path with its parameters filled in, and as body the
 * fields that are neither path nor query parameters. A tool call and the equivalent REST call
 * therefore share one idempotency fingerprint, so a key spent on one interface replays on the
 * other.
 */
export function restRequestOf(op: Operation, input: Record<string, unknown>): RestRequest {
  const pathNames = pathParameterNames(op.http.path);
  const path = op.http.path.replace(PATH_PARAMETER, (_, name: string) => {
    const value = input[name];
    return encodeURIComponent(typeof value === "string" || typeof value === "number" ? String(value) : "");
  });
  if (op.http.method === "GET" || op.http.method === "DELETE") return { method: op.http.method, path, body: null };
  const excluded = new Set([...pathNames, ...(op.http.query ?? [])]);
  const body = Object.fromEntries(Object.entries(input).filter(([k]) => !excluded.has(k)));
  return { method: op.http.method, path, body };
}
