import { ERROR_CATALOGUE, ERROR_CODES, OAUTH_ERROR_CATALOGUE } from "./errors.ts";

/**
 * Renders docs/errors.md from the error catalogue. A test keeps the committed file equal to
 * this output, so the document cannot drift from the code.
 */
export function renderErrorsDoc(): string {
  const rows = ERROR_CODES.map((code) => {
    const e = ERROR_CATALOGUE[code];
    return `| \`${code}\` | ${e.status} | ${e.retryable ? "yes" : "no"} | ${e.summary} |`;
  });
  const oauthRows = Object.entries(OAUTH_ERROR_CATALOGUE).map(([code, e]) => `| \`${code}\` | ${e.status} | ${e.summary} |`);
  return [
    "# Error codes",
    "",
    "Generated from `packages/core/src/errors.ts` by `pnpm docs:errors`; a test fails when this file",
    "and the catalogue disagree. Every failure on every route is the envelope",
    "`{ \"error\": { \"code\", \"message\", \"details\"? }, \"request_id\" }` with `Cache-Control: no-store`;",
    "MCP tools return the same envelope as the structuredContent of an `isError` result. Branch on",
    "`code`, never on `message`, and treat an unknown code as a generic failure.",
    "",
    "| Code | HTTP | Retryable | Meaning |",
    "|---|---|---|---|",
    ...rows,
    "",
    "## OAuth endpoints",
    "",
    "`/oauth/register`, `/oauth/token` and `/oauth/revoke` answer failures as OAuth clients expect",
    "(RFC 6749 §5.2): `{ \"error\", \"error_description\" }` with `Cache-Control: no-store`. The",
    "authorization endpoint sends `error=` (with `state` and `iss`) to the client's redirect URI, or shows",
    "the error on its page when the client or redirect URI cannot be trusted (docs/oauth.md).",
    "",
    "| Error | HTTP | Meaning |",
    "|---|---|---|",
    ...oauthRows,
    "",
  ].join("\n");
}
