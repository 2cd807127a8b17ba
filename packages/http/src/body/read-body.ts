import { malformed } from "@agentq/core";
import type { Context } from "hono";
import { Readable } from "node:stream";
import { parseContentEncoding } from "./content-encoding.ts";
import { MAX_BODY_BYTES, MAX_COMPRESSED_BODY_BYTES } from "./limits.ts";
import { readBodyBytes, tooLarge, type BodyLimits, type NodeBody } from "./read-body-bytes.ts";

/** The body rules of REST, the dashboard's forms (spec §Limits): 256 KB after decompression, 1 MB compressed, identity, gzip, deflate or br. */
export const REQUEST_BODY_LIMITS: BodyLimits = { maxBytes: MAX_BODY_BYTES, maxCompressedBytes: MAX_COMPRESSED_BODY_BYTES, encodings: "compressed" };

const decoder = new TextDecoder("utf-8", { fatal: true });

/** Node's IncomingMessage of the request when served by @hono/node-server (its bindings), else null: read directly, it costs no web stream. */
export function nodeBodyOf(c: Context): NodeBody | null {
  const incoming = (c.env as { incoming?: unknown } | undefined)?.incoming;
  return incoming instanceof Readable ? incoming : null;
}

/**
 * Reads a request's body (from `nodeBody` when the server provides it, else the web stream)
 * within `limits`: the Content-Encoding must be one `limits` accepts (415, before reading); a
 * declared Content-Length past the wire limit is refused before reading (413); the bytes are
 * counted (and decompressed) as they arrive and the read stops past a limit (413). No body is
 * zero bytes.
 * @throws DomainError SVC_UNSUPPORTED_CONTENT_TYPE | SVC_PAYLOAD_TOO_LARGE | SVC_MALFORMED_REQUEST (corrupt compressed data)
 */
export async function readRequestBytes(request: Request, nodeBody: NodeBody | null, limits: BodyLimits): Promise<Uint8Array> {
  const body = nodeBody ?? request.body;
  if (body === null) return new Uint8Array(0);
  const encoding = parseContentEncoding(request.headers.get("content-encoding"), limits.encodings);
  const wireLimit = encoding === "identity" ? limits.maxBytes : limits.maxCompressedBytes;
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (Number.isFinite(declared) && declared > wireLimit) throw tooLarge(limits);
  return readBodyBytes(body, encoding, limits);
}

/**
 * `readRequestBytes`, decoded as UTF-8.
 * @throws DomainError as `readRequestBytes`; SVC_MALFORMED_REQUEST when the bytes are not UTF-8.
 */
export async function readRequestText(request: Request, nodeBody: NodeBody | null, limits: BodyLimits): Promise<string> {
  return decodeUtf8(await readRequestBytes(request, nodeBody, limits));
}

/**
 * Decodes UTF-8 strictly.
 * @throws DomainError SVC_MALFORMED_REQUEST when the bytes are not UTF-8.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  try {
    return decoder.decode(bytes);
  } catch {
    throw malformed("The request body is not valid UTF-8.");
  }
}
