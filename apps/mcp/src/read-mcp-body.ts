import { assertJsonDepth, readRequestText, type BodyLimits, type NodeBody } from "@agentq/http";

/** Request bodies over this size are refused (spec §Limits: 256 KB). */
export const MAX_MCP_BODY_BYTES = 256 * 1024;

/**
 * Deepest JSON nesting accepted in a JSON-RPC message: the 64 levels of a REST body (DESIGN §2)
 * plus the two levels of the JSON-RPC wrapper (message, params) around the tool arguments.
 */
export const MAX_MCP_JSON_DEPTH = 64 + 2;

/** The body rules of a POST to /mcp: 256 KB, and no Content-Encoding (MCP clients never compress). */
const MCP_BODY_LIMITS: BodyLimits = { maxBytes: MAX_MCP_BODY_BYTES, maxCompressedBytes: MAX_MCP_BODY_BYTES, encodings: "identity" };

/** The body of a POST to /mcp: the parsed JSON-RPC message(s), or a parse failure for the transport's -32700 answer. */
export type McpBody = { kind: "parsed"; value: unknown } | { kind: "not_json" };

/**
 * Reads and parses the body of an MCP POST through the edge's one body reader (@agentq/http):
 * at most 256 KB (refused from Content-Length, and counted as the bytes arrive), not
 * content-encoded, UTF-8, nested at most MAX_MCP_JSON_DEPTH levels (checked before parsing).
 * @throws DomainError SVC_UNSUPPORTED_CONTENT_TYPE (a Content-Encoding other than identity),
 *   SVC_PAYLOAD_TOO_LARGE, SVC_MALFORMED_REQUEST (invalid UTF-8, nested too deep).
 */
export async function readMcpBody(request: Request, nodeBody: NodeBody | null = null): Promise<McpBody> {
  const text = await readRequestText(request, nodeBody, MCP_BODY_LIMITS);
  assertJsonDepth(text, MAX_MCP_JSON_DEPTH);
  try {
    return { kind: "parsed", value: JSON.parse(text) as unknown };
  } catch {
    return { kind: "not_json" };
  }
}
