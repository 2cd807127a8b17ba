import { assertSafeStrings } from "@agentq/core";
import { nodeBodyOf, readFormFields, type FormFields } from "@agentq/http";
import type { Context } from "hono";

/** A posted form's fields as text (files are not accepted anywhere in the dashboard). */
export interface FormInput {
  /** The field's value trimmed, or "" when absent. */
  text(name: string): string;
  /** The field's value as sent (passwords are not trimmed), or "" when absent. */
  raw(name: string): string;
  /** Every value of a repeated field (checkboxes). */
  all(name: string): string[];
}

// One read per request: a handler may ask for its form more than once.
const read = new WeakMap<Request, Promise<FormFields>>();

/**
 * Reads an application/x-www-form-urlencoded (or multipart) body through the edge's one body
 * reader (@agentq/http `readFormFields`): the limits of every request body (256 KB after
 * decompression, counted as the bytes arrive: 413 SVC_PAYLOAD_TOO_LARGE past them). Every field,
 * name and value, passes the same string check as REST and MCP input (DESIGN §2c) before a page
 * reads it.
 * @throws DomainError SVC_PAYLOAD_TOO_LARGE | SVC_UNSUPPORTED_CONTENT_TYPE (an unknown
 *   Content-Encoding) | SVC_MALFORMED_REQUEST (details.errors[].path `/<field>`) for a field with
 *   U+0000 or a lone surrogate, or a form that does not parse.
 */
export async function readForm(c: Context): Promise<FormInput> {
  let pending = read.get(c.req.raw);
  if (pending === undefined) {
    pending = readFormFields(c.req.raw, nodeBodyOf(c));
    read.set(c.req.raw, pending);
  }
  const fields = await pending;
  // A single value is checked as a string, repeated ones as a list: errors[].path is /<field> or /<field>/<i>.
  assertSafeStrings(Object.fromEntries([...fields].map(([name, list]) => [name, list.length === 1 && !name.endsWith("[]") ? list[0] : list.length === 0 ? "" : list])));
  const values = (name: string): string[] => [...(fields.get(name) ?? [])];
  return {
    text: (name) => (values(name)[0] ?? "").trim(),
    raw: (name) => values(name)[0] ?? "",
    all: values,
  };
}
