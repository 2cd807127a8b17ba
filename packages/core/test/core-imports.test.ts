import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CORE_ALLOWED_IMPORTS } from "@agentq/eslint-config";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";

// DESIGN §1: the core depends only on pure libraries, "kept by a lint allow-list". These run the
// core's own ESLint config (packages/core/eslint.config.js) on probe texts, as `pnpm lint` does.
const CORE = fileURLToPath(new URL("..", import.meta.url));
const eslint = new ESLint({ cwd: CORE });

async function refusedImports(text: string, file: string): Promise<string[]> {
  const [result] = await eslint.lintText(text, { filePath: `${CORE}${file}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === "no-restricted-imports").map((m) => text.split("\n")[m.line - 1]!.replace(/.* from "|"$|";$/g, ""));
}

const PROBE = [
  'import { Type } from "@sinclair/typebox";',
  'import { Value } from "@sinclair/typebox/value";',
  'import { sha256 } from "@noble/hashes/sha2.js";',
  'import { RE2JS } from "re2js";',
  'import { ulid } from "ulidx";',
  'import { isUlid } from "./ids.ts";',
  'import type { Hono } from "hono";',
  'import { readFileSync } from "node:fs";',
  'import { createHash } from "crypto";',
  'export { sql } from "drizzle-orm";',
  'import type postgres from "postgres";',
  'import { hash } from "@node-rs/argon2";',
  'import * as oidc from "openid-client";',
  'import { describe } from "vitest";',
].join("\n");

describe("the core's imports are an allow-list (DESIGN §1, issue 27)", () => {
  it("production files may import only their own files and the allowed pure libraries; type imports and re-exports are checked too", async () => {
    expect(await refusedImports(PROBE, "src/ids.ts")).toEqual(["hono", "node:fs", "crypto", "drizzle-orm", "postgres", "@node-rs/argon2", "openid-client", "vitest"]);
    // ESLint's first run (the parser and the rules loaded) took 38 s on the loaded 2-core machine.
  }, 120_000);

  it("tests and the testing entry may import vitest besides, and nothing impure", async () => {
    expect(await refusedImports(PROBE, "src/testing/manual-clock.ts")).toEqual(["hono", "node:fs", "crypto", "drizzle-orm", "postgres", "@node-rs/argon2", "openid-client"]);
  }, 120_000);

  it("every runtime dependency of @agentq/core is on the allow-list", () => {
    const { dependencies } = JSON.parse(readFileSync(`${CORE}package.json`, "utf8")) as { dependencies: Record<string, string> };
    expect(Object.keys(dependencies).filter((name) => !CORE_ALLOWED_IMPORTS.includes(name))).toEqual([]);
  });
});
