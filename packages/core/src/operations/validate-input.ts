import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { malformed } from "../errors.ts";

/**
 * Checks `raw` against an operation's TypeBox input schema and returns it typed. Defaults are
 * not applied here: use cases apply their own, so REST and MCP behave the same.
 * @throws DomainError SVC_MALFORMED_REQUEST with details.errors [{ path, message }] (at most 10).
 */
export function validateInput<S extends TSchema>(schema: S, raw: unknown): Static<S> {
  if (Value.Check(schema, raw)) return raw;
  const errors: { path: string; message: string }[] = [];
  for (const e of Value.Errors(schema, raw)) {
    errors.push({ path: e.path === "" ? "/" : e.path, message: e.message });
    if (errors.length >= 10) break;
  }
  const first = errors[0];
  throw malformed(first ? `Invalid request: ${first.path} ${first.message}.` : "Invalid request.", { errors });
}
