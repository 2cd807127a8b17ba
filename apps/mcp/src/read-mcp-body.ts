import { DomainError, malformed } from "@agentq/core";

/** Request bodies over this size are refused (spec §Limits: 256 KB). */
export const MAX_MCP_BODY_BYTES = 256 * 1024;

/**
 * Deepest JSON nesting accepted in a JSON-RPC message: the 64 levels of a REST body (DESIGN §2)
 * plus the two levels of the JSON-RPC wrapper (message, params) around the tool arguments.
 */
export const MAX_MCP_JSON_DEPTH = 64 + 2;

/** The body of a POST to /mcp: the parsed JSON-RPC message(s), or a parse failure for the transport's -32700 answer. */
export type McpBody = { kind: "parsed"; value: unknown } | { kind: "not_json" };

// One linear scan without recursion; brackets inside strings do not count. Runs before the
// parser, so a hostile nesting never reaches JSON.parse or the schema checks behind it.
function nestingDepthExceeds(text: string, maxDepth: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++;
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) inString = true;
    else if (ch === 0x7b || ch === 0x5b) {
      if (++depth > maxDepth) return true;
    } else if (ch === 0x7d || ch === 0x5d) depth--;
  }
  return false;
}

/** Node's IncomingMessage, as far as reading a body needs it (under @hono/node-server). */
export interface McpNodeBody {
  iterator(options: { destroyOnReturn: boolean }): AsyncIterator<Uint8Array>;
}

/**
 * Reads and parses the body of an MCP POST with the service's body rules: at most 256 KB
 * (counted as the bytes arrive, whatever Content-Length says), UTF-8, nested at most
 * MAX_MCP_JSON_DEPTH levels. Request bodies are not content-encoded by MCP clients; an encoded
 * body is refused.
 * @throws DomainError SVC_UNSUPPORTED_CONTENT_TYPE (Content-Encoding other than identity),
 *   SVC_PAYLOAD_TOO_LARGE, SVC_MALFORMED_REQUEST (invalid UTF-8, nested too deep).
 */
export async function readMcpBody(request: Request, nodeBody: McpNodeBody | null = null): Promise<McpBody> {
  const encoding = request.headers.get("content-encoding")?.trim().toLowerCase() ?? "identity";
  if (encoding !== "identity" && encoding !== "") {
    throw new DomainError("SVC_UNSUPPORTED_CONTENT_TYPE", "The MCP endpoint accepts uncompressed request bodies only.", { content_encoding: encoding });
  }
  const chunks: Uint8Array[] = [];
  let size = 0;
  const source = nodeBody ?? (request.body as AsyncIterable<Uint8Array> | null);
  if (source !== null) {
    // Node's IncomingMessage is read without being destroyed when the read stops early, so what is
    // left of a refused body can be drained before the answer goes out (closeAfterUnreadBody).
    const chunksOf: AsyncIterable<Uint8Array> = nodeBody === null ? (source as AsyncIterable<Uint8Array>) : { [Symbol.asyncIterator]: () => nodeBody.iterator({ destroyOnReturn: false }) };
    for await (const value of chunksOf) {
      size += value.byteLength;
      if (size > MAX_MCP_BODY_BYTES) throw new DomainError("SVC_PAYLOAD_TOO_LARGE", "The request body is over 256 KB.", { max_bytes: MAX_MCP_BODY_BYTES });
      chunks.push(value);
    }
  }
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(Buffer.concat(chunks));
  } catch {
    throw malformed("The request body is not valid UTF-8.");
  }
  if (nestingDepthExceeds(text, MAX_MCP_JSON_DEPTH)) {
    throw malformed(`The JSON body is nested deeper than ${MAX_MCP_JSON_DEPTH} levels.`, { max_depth: MAX_MCP_JSON_DEPTH });
  }
  try {
    return { kind: "parsed", value: JSON.parse(text) as unknown };
  } catch {
    return { kind: "not_json" };
  }
}
