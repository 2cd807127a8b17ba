// Shared ESLint flat config: type-checked rules everywhere, plus the boundary rule that keeps
// packages/core free of I/O and adapter libraries (DESIGN §1).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

/**
 * The only packages packages/core may import (DESIGN §1: pure libraries, kept by a lint
 * allow-list): TypeBox, ulidx, the noble hashes and curves, the text libraries SESSION-STATE.md
 * §1 names (re2js, markdown-it, picomatch, linguist-languages), and the core's other pure
 * dependencies (TOTP, the common-password list, the US federal holidays). Anything else (node:*,
 * hono, postgres, drizzle, the MCP SDK, commander, ...) is a lint error, whatever its name.
 */
export const CORE_ALLOWED_IMPORTS = [
  "@sinclair/typebox", "ulidx", "@noble/hashes", "@noble/curves",
  "re2js", "markdown-it", "picomatch", "linguist-languages",
  "otpauth", "@zxcvbn-ts/language-common", "@18f/us-federal-holidays",
];
/** What the core's tests and its `testing/` entry (contract suites) may import besides. */
export const CORE_TEST_ALLOWED_IMPORTS = [...CORE_ALLOWED_IMPORTS, "vitest", "fast-check"];

/**
 * The `no-restricted-imports` setting that lets through only relative imports and `allowed`
 * packages (a package's subpaths included: `@noble/hashes/sha2.js`). Type-only imports and
 * `export ... from` are checked too.
 */
export function onlyImportsOf(allowed) {
  const names = allowed.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&")).join("|");
  return ["error", { patterns: [{ regex: `^(?!\\.{1,2}/|(?:${names})(?:/|$))`, message: `packages/core imports only its own files and the pure libraries DESIGN §1 allows (${allowed.join(", ")}): no I/O, no adapter libraries.` }] }];
}

export function agentqConfig({ tsconfigRootDir, core = false }) {
  return tseslint.config(
    js.configs.recommended,
    ...tseslint.configs.recommendedTypeChecked,
    {
      languageOptions: { parserOptions: { projectService: true, tsconfigRootDir } },
      rules: {
        "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
        "@typescript-eslint/consistent-type-imports": "error",
        "@typescript-eslint/require-await": "off",
      },
    },
    // Tests read JSON response bodies, which are untyped by nature.
    {
      files: ["**/*.test.ts", "**/testing/**/*.ts"],
      rules: {
        "@typescript-eslint/no-explicit-any": "off",
        "@typescript-eslint/no-unsafe-member-access": "off",
        "@typescript-eslint/no-unsafe-assignment": "off",
        "@typescript-eslint/no-unsafe-call": "off",
        "@typescript-eslint/no-unsafe-argument": "off",
        "@typescript-eslint/no-unsafe-return": "off",
      },
    },
    ...(core
      ? [
          { rules: { "no-restricted-imports": onlyImportsOf(CORE_ALLOWED_IMPORTS) } },
          { files: ["**/*.test.ts", "**/testing/**/*.ts"], rules: { "no-restricted-imports": onlyImportsOf(CORE_TEST_ALLOWED_IMPORTS) } },
        ]
      : []),
  );
}
