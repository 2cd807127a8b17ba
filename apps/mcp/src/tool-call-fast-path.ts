import { SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import type { ToolBinding } from "./tool-binding.ts";

/** A `tools/call` request the fast path may answer: its JSON-RPC id, the tool and its arguments. */
export interface PlainToolCall {
  id: string | number;
  binding: ToolBinding;
  args: Record<string, unknown>;
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

const PARAMS_KEYS: ReadonlySet<string> = new Set(["name", "arguments"]);

/**
 * Recognises the one request shape that is most of an agent's traffic: a single JSON-RPC
 * `tools/call` request (not a batch, not a notification) of a known tool, with plain
 * arguments and nothing else in `params` (no `_meta`, no progress token, no task), sent as the
 * Streamable HTTP transport requires (Accept naming application/json and text/event-stream,
 * Content-Type application/json, a supported Mcp-Protocol-Version when given). Null for
 * anything else: the SDK's server and transport then answer it, with their own validation and
 * errors. So the fast path never answers a request the SDK would have refused.
 */
export function plainToolCall(headers: { get(name: string): string | null }, body: unknown, byName: ReadonlyMap<string, ToolBinding>): PlainToolCall | null {
  if (!isPlainObject(body) || body["jsonrpc"] !== "2.0" || body["method"] !== "tools/call") return null;
  const id = body["id"];
  if (!((typeof id === "string") || (typeof id === "number" && Number.isFinite(id)))) return null;
  for (const k of Object.keys(body)) if (k !== "jsonrpc" && k !== "method" && k !== "id" && k !== "params") return null;
  const params = body["params"];
  if (!isPlainObject(params)) return null;
  for (const k of Object.keys(params)) if (!PARAMS_KEYS.has(k)) return null;
  const name = params["name"];
  const args = params["arguments"] ?? {};
  if (typeof name !== "string" || !isPlainObject(args)) return null;
  const binding = byName.get(name);
  if (binding === undefined) return null;
  const accept = headers.get("accept") ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream")) return null;
  const contentType = (headers.get("content-type") ?? "").split(";")[0]?.trim().toLowerCase();
  if (contentType !== "application/json") return null;
  const version = headers.get("mcp-protocol-version");
  if (version !== null && !SUPPORTED_PROTOCOL_VERSIONS.includes(version)) return null;
  return { id, binding, args };
}

/** The JSON-RPC response the SDK's transport sends for a tool result (JSON response mode): the same bytes, without building a server per request. */
export function toolCallResponseBody(id: string | number, result: CallToolResult): string {
  return JSON.stringify({ result, jsonrpc: "2.0", id });
}
