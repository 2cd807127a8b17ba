import { OPERATIONAL_SCOPES } from "../access/model.ts";

/** The scopes an MCP client gets when it asks for none it may have: every operational scope (the 401's `scope=`). */
export const DEFAULT_OAUTH_SCOPES: readonly string[] = OPERATIONAL_SCOPES;

/**
 * The scopes of an authorization request: the operational scopes named in the space-separated
 * `scope` parameter, in catalogue order; values this server does not know (or that an OAuth
 * client may not get: administrative scopes) are left out (RFC 6749 §3.3 lets the server grant
 * less); no scope, or none left, means every operational scope.
 */
export function requestedScopes(scope: string | null): string[] {
  const asked = new Set((scope ?? "").split(" ").filter((s) => s !== ""));
  const known = OPERATIONAL_SCOPES.filter((s) => asked.has(s));
  return known.length === 0 ? [...DEFAULT_OAUTH_SCOPES] : known;
}

/**
 * The scopes of a refresh request: the grant's, or the narrower set named in `scope`.
 * Null when `scope` names a value outside the grant (invalid_scope, RFC 6749 §6).
 */
export function narrowedScopes(granted: readonly string[], scope: string | null): string[] | null {
  if (scope === null) return [...granted];
  const asked = [...new Set(scope.split(" ").filter((s) => s !== ""))];
  if (asked.length === 0) return [...granted];
  return asked.every((s) => granted.includes(s)) ? granted.filter((s) => asked.includes(s)) : null;
}
