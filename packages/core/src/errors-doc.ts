import { ERROR_CATALOGUE, ERROR_CODES } from "./errors.ts";

/**
 * Renders docs/errors.md from the error catalogue. A test keeps the committed file equal to
 * this output, so the document cannot drift from the code.
 */
export function renderErrorsDoc(): string {
  const rows = ERROR_CODES.map((code) => {
    const e = ERROR_CATALOGUE[code];
    return `| \`${code}\` | ${e.status} | ${e.retryable ? "yes" : "no"} | ${e.summary} |`;
  });
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
  ].join("\n");
}
