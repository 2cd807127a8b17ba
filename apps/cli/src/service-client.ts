import { findOperation } from "@agentq/core";
import { CliError, isWireErrorEnvelope } from "./cli-error.ts";

/** Where the service is and who calls it. */
export interface ServiceConfig {
  /** The service base URL without a trailing slash (REST lives under `/v1`, MCP at `/mcp`). */
  baseUrl: string;
  /** The bearer credential (from SVC_CREDENTIAL); never printed. */
  credential: string;
  fetch: typeof fetch;
  /** The caller's traceparent (TRACEPARENT), sent as the `traceparent` header of every request; null or absent for none. */
  traceparent?: string | null;
}

/** What `call` sends: an operation of the catalogue by name, its input, and an optional Idempotency-Key. */
export interface OperationRequest {
  operation: string;
  /** The operation's input: path parameters, query parameters and body fields side by side (undefined values are dropped). */
  input: Record<string, unknown>;
  idempotencyKey?: string;
}

const USER_AGENT = "agentq-cli/0.1.0";
const PATH_PARAMETER = /\{([A-Za-z0-9_]+)\}/g;

/** A scalar input value as it goes into a path segment or a query parameter. */
function scalarText(value: unknown): string {
  return typeof value === "string" || typeof value === "number" || typeof value === "boolean" ? String(value) : JSON.stringify(value ?? "");
}

/**
 * The HTTP request of an operation call, derived from the operation catalogue: the method and
 * path of the operation (path parameters filled in), its declared query parameters in the query
 * string, every other input field in the JSON body (POST, PUT, PATCH).
 */
export function httpRequestOf(baseUrl: string, req: OperationRequest): { method: string; url: string; body: string | null } {
  const op = findOperation(req.operation);
  if (op === undefined) throw CliError.local("CLI_INTERNAL", `The operation ${req.operation} is not in the catalogue.`);
  const input = Object.fromEntries(Object.entries(req.input).filter(([, v]) => v !== undefined));
  const used = new Set<string>();
  const path = op.http.path.replace(PATH_PARAMETER, (_, name: string) => {
    used.add(name);
    return encodeURIComponent(scalarText(input[name]));
  });
  const url = new URL(`${baseUrl}${path}`);
  for (const name of op.http.query ?? []) {
    used.add(name);
    const value = input[name];
    if (value !== undefined) url.searchParams.set(name, scalarText(value));
  }
  const hasBody = op.http.method === "POST" || op.http.method === "PUT" || op.http.method === "PATCH";
  const body = Object.fromEntries(Object.entries(input).filter(([k]) => !used.has(k)));
  return { method: op.http.method, url: url.toString(), body: hasBody ? JSON.stringify(body) : null };
}

/**
 * Calls one operation over REST and returns the parsed response body.
 * @throws CliError with the service's code for an error envelope; CLI_NETWORK when the service
 *   cannot be reached; CLI_BAD_RESPONSE when the answer is not agentq's JSON.
 */
export async function callOperation(config: ServiceConfig, req: OperationRequest): Promise<unknown> {
  const { method, url, body } = httpRequestOf(config.baseUrl, req);
  const headers: Record<string, string> = { Authorization: `Bearer ${config.credential}`, Accept: "application/json", "User-Agent": USER_AGENT };
  if (body !== null) headers["Content-Type"] = "application/json";
  if (req.idempotencyKey !== undefined) headers["Idempotency-Key"] = req.idempotencyKey;
  if (config.traceparent != null) headers["traceparent"] = config.traceparent;
  let response: Response;
  let text: string;
  try {
    response = await config.fetch(url, { method, headers, ...(body === null ? {} : { body }) });
    text = await response.text();
  } catch (e) {
    const cause = e instanceof Error && e.cause instanceof Error ? `: ${e.cause.message}` : "";
    throw CliError.local("CLI_NETWORK", `Could not reach ${config.baseUrl}${cause}.`);
  }
  let parsed: unknown;
  try {
    parsed = text === "" ? null : JSON.parse(text);
  } catch {
    throw CliError.local("CLI_BAD_RESPONSE", `${config.baseUrl} answered HTTP ${response.status} with a body that is not JSON; is it an agentq server?`);
  }
  if (response.ok) return parsed;
  if (isWireErrorEnvelope(parsed)) throw CliError.fromService(parsed, response.status, response.headers.get("retry-after"));
  throw CliError.local("CLI_BAD_RESPONSE", `${config.baseUrl} answered HTTP ${response.status} without an error envelope; is it an agentq server?`);
}
