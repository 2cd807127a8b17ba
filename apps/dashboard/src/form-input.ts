import { assertSafeStrings } from "@agentq/core";
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

/**
 * Reads an application/x-www-form-urlencoded (or multipart) body. Every field, name and value,
 * passes the same string check as REST and MCP input (DESIGN §2c) before a page reads it.
 * @throws DomainError SVC_MALFORMED_REQUEST (details.errors[].path `/<field>`) for a field with U+0000 or a lone surrogate.
 */
export async function readForm(c: Context): Promise<FormInput> {
  const body = await c.req.parseBody({ all: true });
  assertSafeStrings(Object.fromEntries(Object.entries(body).map(([name, v]) => [name, Array.isArray(v) ? v.filter((x) => typeof x === "string") : typeof v === "string" ? v : ""])));
  const values = (name: string): string[] => {
    const v = body[name];
    const list = Array.isArray(v) ? v : v === undefined ? [] : [v];
    return list.filter((x): x is string => typeof x === "string");
  };
  return {
    text: (name) => (values(name)[0] ?? "").trim(),
    raw: (name) => values(name)[0] ?? "",
    all: values,
  };
}
