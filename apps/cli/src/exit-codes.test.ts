import { readFileSync } from "node:fs";
import { ERROR_CATALOGUE, ERROR_CODES } from "@agentq/core";
import { describe, expect, it } from "vitest";
import { EXIT, exitCodeForServiceError } from "./exit-codes.ts";

/** The exit-code table of README.md: code -> exit code, read from its rows. */
function documentedExitCodes(): Map<string, number> {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const out = new Map<string, number>();
  for (const line of readme.split("\n")) {
    const row = /^\| (\d) \|[^|]*\|([^|]*)\|$/.exec(line);
    if (row === null) continue;
    for (const code of row[2]!.matchAll(/`((?:SVC|CLI)_[A-Z_]+)`/g)) out.set(code[1]!, Number(row[1]));
  }
  return out;
}

describe("exit codes", () => {
  it("README documents every SVC_ code of the catalogue with the exit code the CLI uses", () => {
    const documented = documentedExitCodes();
    for (const code of ERROR_CODES) expect(documented.get(code), code).toBe(exitCodeForServiceError(code, ERROR_CATALOGUE[code].status));
  });

  it("classes a code it does not know by its HTTP status", () => {
    expect(exitCodeForServiceError("SVC_SOMETHING_NEW", 401)).toBe(EXIT.auth);
    expect(exitCodeForServiceError("SVC_SOMETHING_NEW", 403)).toBe(EXIT.auth);
    expect(exitCodeForServiceError("SVC_SOMETHING_NEW", 404)).toBe(EXIT.notFound);
    expect(exitCodeForServiceError("SVC_SOMETHING_NEW", 410)).toBe(EXIT.notFound);
    expect(exitCodeForServiceError("SVC_SOMETHING_NEW", 409)).toBe(EXIT.conflict);
    expect(exitCodeForServiceError("SVC_SOMETHING_NEW", 429)).toBe(EXIT.retryable);
    expect(exitCodeForServiceError("SVC_SOMETHING_NEW", 502)).toBe(EXIT.retryable);
    expect(exitCodeForServiceError("SVC_SOMETHING_NEW", 422)).toBe(EXIT.usage);
  });

  it("keeps retryable codes (and only those) in the retryable class", () => {
    for (const code of ERROR_CODES) {
      expect(exitCodeForServiceError(code, ERROR_CATALOGUE[code].status) === EXIT.retryable, code).toBe(ERROR_CATALOGUE[code].retryable);
    }
  });
});
