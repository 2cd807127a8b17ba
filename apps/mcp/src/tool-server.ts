// The low-level Server (marked "for advanced use cases") is used on purpose: tool input schemas are published as the catalogue's
// JSON Schema (TypeBox) directly, which the high-level McpServer would force through zod.
import { validTraceparent } from "@agentq/core";
import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { CallToolRequestSchema, ErrorCode, ListToolsRequestSchema, McpError } from "@modelcontextprotocol/sdk/types.js";
import { callTool } from "./call-tool.ts";
import type { ToolCallContext } from "./call-tool.ts";
import type { ToolBinding } from "./tool-binding.ts";

/** Name and version the server announces in `initialize`. */
export const MCP_SERVER_INFO = { name: "agentq", version: "0.1.0" } as const;

/**
 * Instructions the server announces in `initialize`, for the model: how the queue is used, the
 * failure shape (said here once, not in every tool's output schema), the arguments many tools
 * share (their descriptions are left out of the tools, lean-schema.ts), and the toolsets.
 */
export const INSTRUCTIONS = [
  "agentq is a message queue between AI agents. Send with `send` (recipient by friendly name, a template and a payload); " +
    "claim with `get_pending`, then `ack` with the lease_id (or `nack`, or `extend_lease` while working).",
  "A failed call returns isError with structuredContent { error: { code, message, details? }, request_id }; branch on error.code (SVC_...). Output schemas describe successful results only.",
  "Arguments shared by many tools: idempotency_key (tools that change state): reuse the same key to retry safely, as without one a retry is a new request; " +
    "cursor: next_cursor of the previous page (bound to the query, valid 24 hours); limit: page size, default 50, 1 to 100; " +
    "project_id (session state): absent means the credential's project, else the workspace's default project.",
  "Tools come in toolsets (messaging, session_state, admin); you see those your credential's scopes allow. Add ?toolsets=messaging,session_state to the MCP URL (or the header X-MCP-Toolsets) to see fewer.",
].join("\n");

/**
 * An MCP server exposing the given tools for one caller. Built per HTTP request (stateless
 * Streamable HTTP), so the caller and request id are fixed for its lifetime. `tools/list` shows
 * `listed` (default: every binding; tool-listing.ts chooses them per caller); `tools/call` calls
 * any of `bindings` by name.
 * Unknown tool names are a protocol error (-32602, as the MCP specification prescribes); every
 * other failure is an `isError` result (see callTool).
 */
export function createToolServer(bindings: readonly ToolBinding[], cx: ToolCallContext, listed: () => readonly ToolBinding[] = () => bindings): Server {
  const server = new Server(MCP_SERVER_INFO, { capabilities: { tools: {} }, instructions: INSTRUCTIONS });
  const byName = new Map(bindings.map((b) => [b.tool.name, b]));
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listed().map((b) => b.tool) }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const binding = byName.get(request.params.name);
    if (binding === undefined) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${request.params.name}`);
    const signals = [extra.signal, ...(cx.signal === undefined ? [] : [cx.signal])];
    // A traceparent in the call's _meta (MCP's place for it) wins over the HTTP request's header.
    const callTraceparent = validTraceparent(request.params._meta?.["traceparent"]);
    const trace = callTraceparent === null ? cx.trace : { ...cx.trace, callTraceparent };
    return callTool(binding, request.params.arguments ?? {}, { ...cx, signal: AbortSignal.any(signals), ...(trace === undefined ? {} : { trace }) });
  });
  return server;
}
