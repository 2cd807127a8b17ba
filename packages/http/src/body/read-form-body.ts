import { malformed } from "@agentq/core";
import type { NodeBody } from "./read-body-bytes.ts";
import { readRequestBytes, REQUEST_BODY_LIMITS } from "./read-body.ts";

/** A posted form's fields: each name with its text values in the order sent (a file's value is dropped: no form takes one). */
export type FormFields = ReadonlyMap<string, readonly string[]>;

const FORM_TYPES = new Set(["application/x-www-form-urlencoded", "multipart/form-data"]);

/**
 * Reads a form post (application/x-www-form-urlencoded or multipart/form-data) with the limits
 * of every request body (`REQUEST_BODY_LIMITS`: 256 KB after decompression, counted as the bytes
 * arrive) and parses it as the platform's `FormData` does. A request of any other Content-Type
 * has no fields and its body is not read.
 * @throws DomainError SVC_PAYLOAD_TOO_LARGE | SVC_UNSUPPORTED_CONTENT_TYPE (an unknown
 *   Content-Encoding) | SVC_MALFORMED_REQUEST (corrupt compressed data, a multipart body that
 *   does not parse)
 */
export async function readFormFields(request: Request, nodeBody: NodeBody | null = null): Promise<FormFields> {
  const contentType = request.headers.get("content-type") ?? "";
  const fields = new Map<string, string[]>();
  if (!FORM_TYPES.has(contentType.split(";")[0]?.trim().toLowerCase() ?? "")) return fields;
  const bytes = await readRequestBytes(request, nodeBody, REQUEST_BODY_LIMITS);
  let form: FormData;
  try {
    form = await new Response(bytes, { headers: { "Content-Type": contentType } }).formData();
  } catch {
    throw malformed("The form could not be parsed.");
  }
  form.forEach((value, name) => {
    const values = fields.get(name) ?? [];
    if (typeof value === "string") values.push(value);
    fields.set(name, values);
  });
  return fields;
}
