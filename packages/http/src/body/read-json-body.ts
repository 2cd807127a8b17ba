import { malformed } from "@agentq/core";
import { assertJsonContentType } from "./content-type.ts";
import { assertJsonDepth } from "./json-depth.ts";
import { MAX_JSON_DEPTH } from "./limits.ts";
import type { NodeBody } from "./read-body-bytes.ts";
import { decodeUtf8, readRequestBytes, REQUEST_BODY_LIMITS } from "./read-body.ts";

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
  if ((nodeBody ?? request.body) === null || request.headers.get("content-length") === "0") return {};
  // A declared non-JSON type is refused before a byte is read.
  if (contentType !== null) assertJsonContentType(contentType);
  const bytes = await readRequestBytes(request, nodeBody, REQUEST_BODY_LIMITS);
  if (bytes.byteLength === 0) return {};
  assertJsonContentType(contentType);
  const text = decodeUtf8(bytes);
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
