import { DomainError, malformed } from "@agentq/core";
import { assertJsonContentType } from "./content-type.ts";
import { parseContentEncoding } from "./content-encoding.ts";
import { assertJsonDepth } from "./json-depth.ts";
import { MAX_BODY_BYTES, MAX_COMPRESSED_BODY_BYTES, MAX_JSON_DEPTH } from "./limits.ts";
import { readBodyBytes, type NodeBody } from "./read-body-bytes.ts";

const decoder = new TextDecoder("utf-8", { fatal: true });

/**
 * Reads the JSON object body of a POST, PUT or PATCH request (from `nodeBody`, Node's
 * IncomingMessage, when the server provides it; else from the request's web stream), in this order:
 * 1. No body, or Content-Length 0, is `{}` whatever the headers (bodiless actions like freeze
 *    need no Content-Type).
 * 2. A declared Content-Type must be application/json (415, before reading); Content-Encoding
 *    must be absent, identity, gzip, deflate or br (415); a declared Content-Length past the wire
 *    limit is refused before reading (413).
 * 3. The body is read (and decompressed) as a stream within the limits (413). When it turns out
 *    empty it is `{}`; otherwise an absent Content-Type is refused (415).
 * 4. The text must be UTF-8, nest no deeper than 64 levels (checked before parsing), parse as
 *    JSON, and be an object (400 SVC_MALFORMED_REQUEST).
 * @throws DomainError SVC_UNSUPPORTED_CONTENT_TYPE | SVC_PAYLOAD_TOO_LARGE | SVC_MALFORMED_REQUEST
 */
export async function readJsonBody(request: Request, nodeBody: NodeBody | null = null): Promise<Record<string, unknown>> {
  const contentType = request.headers.get("content-type");
  const body = nodeBody ?? request.body;
  if (body === null || request.headers.get("content-length") === "0") return {};
  // A declared non-JSON type is refused before a byte is read.
  if (contentType !== null) assertJsonContentType(contentType);
  const encoding = parseContentEncoding(request.headers.get("content-encoding"));
  const wireLimit = encoding === "identity" ? MAX_BODY_BYTES : MAX_COMPRESSED_BODY_BYTES;
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (Number.isFinite(declared) && declared > wireLimit) {
    throw new DomainError("SVC_PAYLOAD_TOO_LARGE", "The request body is too large.", { max_bytes: MAX_BODY_BYTES, max_compressed_bytes: MAX_COMPRESSED_BODY_BYTES });
  }
  const bytes = await readBodyBytes(body, encoding, { maxBytes: MAX_BODY_BYTES, maxCompressedBytes: MAX_COMPRESSED_BODY_BYTES });
  if (bytes.byteLength === 0) return {};
  assertJsonContentType(contentType);
  let text: string;
  try {
    text = decoder.decode(bytes);
  } catch {
    throw malformed("The request body is not valid UTF-8.");
  }
  assertJsonDepth(text, MAX_JSON_DEPTH);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw malformed("The request body is not valid JSON.");
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw malformed("The request body must be a JSON object.");
  return value as Record<string, unknown>;
}
