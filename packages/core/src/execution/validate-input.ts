import type { Static, TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { assertSafeStrings } from "../encoding/unsafe-strings.ts";
import { isDomainError, malformed } from "../errors.ts";

/**
 * Checks `raw` against an operation's TypeBox input schema and returns it typed. First, before
 * the schema, every string of `raw` (object keys and nested payloads included) must be free of
 * U+0000 and lone surrogates (`assertSafeStrings`, DESIGN §2c): this is the check every
 * operation's input passes, whichever edge (REST, MCP, the dashboard) assembled it, and the one
 * the people routes' bodies pass too. Defaults are not applied here: use cases apply their own,
 * so REST and MCP behave the same.
 * @throws DomainError SVC_MALFORMED_REQUEST with details.errors [{ path, message }] (at most 10).
 */
export function validateInput<S extends TSchema>(schema: S, raw: unknown): Static<S> {
  assertSafeStrings(raw);
  if (Value.Check(schema, raw)) return raw;
  const errors: { path: string; message: string }[] = [];
  for (const e of Value.Errors(schema, raw)) {
    errors.push({ path: e.path === "" ? "/" : e.path, message: e.message });
    if (errors.length >= 10) break;
  }
  const first = errors[0];
  throw malformed(first ? `Invalid request: ${first.path} ${first.message}.` : "Invalid request.", { errors });
}

/**
 * `validateInput`, whose refusal also names the first invalid top-level field
 * (`details.field`), as the people's routes have always answered (a form can point at it).
 * @throws DomainError SVC_MALFORMED_REQUEST with details.errors and details.field.
 */
export function validateInputNamingField<S extends TSchema>(schema: S, raw: unknown): Static<S> {
  try {
    return validateInput(schema, raw);
  } catch (e) {
    if (!isDomainError(e)) throw e;
    const first = (e.details?.errors as { path?: string }[] | undefined)?.[0]?.path ?? "/";
    const field = first.split("/")[1];
    throw malformed(e.message, { ...e.details, ...(field ? { field } : {}) });
  }
}
