// Shared ESLint flat config: type-checked rules everywhere, plus the boundary rule that keeps
// packages/core free of I/O and adapter libraries (DESIGN §1).
import js from "@eslint/js";
import tseslint from "typescript-eslint";

const forbiddenInCore = ["hono", "hono/*", "@hono/*", "drizzle-orm", "drizzle-orm/*", "postgres",
  "@modelcontextprotocol/*", "commander", "pino", "node:*", "fs", "path", "os", "crypto", "http", "net", "child_process"];

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
    core
      ? {
          rules: {
            "no-restricted-imports": ["error", { patterns: [{ group: forbiddenInCore, message: "packages/core is pure: no I/O or adapter libraries (DESIGN §1)." }] }],
          },
        }
      : {},
  );
}
