import { DomainError } from "@agentq/core";

/** The request body encodings accepted (DESIGN §2). */
export type BodyEncoding = "identity" | "gzip" | "deflate" | "br";

/**
 * Reads the Content-Encoding header: absent or `identity` is no encoding; one of gzip, deflate
 * or br (case-insensitive) is decompressed, unless only `identity` is `accepted`. A list of
 * several encodings is refused like any other unsupported encoding.
 * @throws DomainError SVC_UNSUPPORTED_CONTENT_TYPE for any other value (details.supported_encodings,
 *   or details.content_encoding where only identity is accepted).
 */
export function parseContentEncoding(header: string | null, accepted: "compressed" | "identity" = "compressed"): BodyEncoding {
  if (header === null) return "identity";
  const value = header.trim().toLowerCase();
  if (value === "" || value === "identity") return "identity";
  if (accepted === "identity") throw new DomainError("SVC_UNSUPPORTED_CONTENT_TYPE", "Request bodies must not be content-encoded here.", { content_encoding: value });
  if (value === "gzip" || value === "x-gzip") return "gzip";
  if (value === "deflate" || value === "br") return value;
  throw new DomainError("SVC_UNSUPPORTED_CONTENT_TYPE", "The Content-Encoding is not supported; use gzip, deflate or br.", { supported_encodings: ["gzip", "deflate", "br"] });
}
