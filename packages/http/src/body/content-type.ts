import { DomainError } from "@agentq/core";

/**
 * Checks that a Content-Type names JSON: `application/json`, optionally with parameters; a
 * `charset` parameter must be utf-8 (JSON is UTF-8 on the wire, RFC 8259).
 * @throws DomainError SVC_UNSUPPORTED_CONTENT_TYPE otherwise (also when the header is absent).
 */
export function assertJsonContentType(header: string | null): void {
  if (header === null || !isJsonContentType(header)) {
    throw new DomainError("SVC_UNSUPPORTED_CONTENT_TYPE", "The body must be application/json.", { expected: "application/json" });
  }
}

/** True when `header` is `application/json` with at most a utf-8 charset and other parameters. */
export function isJsonContentType(header: string): boolean {
  const [mediaType = "", ...params] = header.split(";");
  if (mediaType.trim().toLowerCase() !== "application/json") return false;
  for (const param of params) {
    const eq = param.indexOf("=");
    if (eq < 0) continue;
    const name = param.slice(0, eq).trim().toLowerCase();
    const value = param.slice(eq + 1).trim().replace(/^"(.*)"$/, "$1").toLowerCase();
    if (name === "charset" && value !== "utf-8" && value !== "utf8") return false;
  }
  return true;
}
