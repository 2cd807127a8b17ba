import { ERROR_CODES, type ErrorCode } from "@agentq/core";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const REPO = fileURLToPath(new URL("../../../", import.meta.url));

// Codes no route can return yet. When one lands, its tests assert it and this list shrinks; a
// code listed here that a test does assert fails this test too.
const NOT_YET_REACHABLE: readonly ErrorCode[] = [];

function testSources(dir: string, out: string[] = []): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === "node_modules" || entry.name.startsWith(".")) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) testSources(path, out);
    else if (/\.(test|contract)\.ts$/.test(entry.name) && path !== fileURLToPath(import.meta.url)) out.push(readFileSync(path, "utf8"));
  }
  return out;
}

describe("error catalogue coverage (STYLE: every code is exercised at least once)", () => {
  const sources = ["packages", "apps", "tooling"].flatMap((d) => testSources(join(REPO, d))).join("\n");

  it("every code a route can return is asserted by some test", () => {
    const missing = ERROR_CODES.filter((code) => !NOT_YET_REACHABLE.includes(code) && !sources.includes(`"${code}"`));
    expect(missing).toEqual([]);
  });

  it("the codes listed as not yet reachable are indeed asserted nowhere", () => {
    expect(NOT_YET_REACHABLE.filter((code) => sources.includes(`"${code}"`))).toEqual([]);
  });
});
