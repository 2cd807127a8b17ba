import { malformed } from "@agentq/core";

/**
 * The query-string inputs an operation declares (`op.http.query`), as strings: nothing is
 * coerced here (the core parses `limit` and validates the rest), undeclared names are ignored,
 * and a declared name given twice is refused rather than guessed.
 * @throws DomainError SVC_MALFORMED_REQUEST (details.field) for a repeated parameter.
 */
export function readDeclaredQuery(url: string, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (names.length === 0) return out;
  const params = new URL(url).searchParams;
  for (const name of names) {
    const values = params.getAll(name);
    if (values.length > 1) throw malformed(`Query parameter ${name} is given more than once.`, { field: name });
    const value = values[0];
    if (value !== undefined) out[name] = value;
  }
  return out;
}

/** The header inputs an operation declares (`op.http.headers`: input name -> header name), as strings; absent headers are left out. */
export function readDeclaredHeaders(headers: Headers, declared: Readonly<Record<string, string>>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, header] of Object.entries(declared)) {
    const value = headers.get(header);
    if (value !== null) out[name] = value;
  }
  return out;
}

/**
 * The raw input of an operation: body fields, then declared query parameters, then declared
 * headers, then path parameters, each overriding the one before (a path id always wins over a
 * body field of the same name; a header input never comes from the body).
 */
export function assembleRawInput(body: Record<string, unknown>, query: Record<string, string>, pathParams: Record<string, string>, headers: Record<string, string> = {}, headerInputs: readonly string[] = []): Record<string, unknown> {
  const fromBody = headerInputs.length === 0 ? body : Object.fromEntries(Object.entries(body).filter(([k]) => !headerInputs.includes(k)));
  return { ...fromBody, ...query, ...headers, ...pathParams };
}
