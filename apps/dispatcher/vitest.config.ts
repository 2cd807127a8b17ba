import { fileURLToPath } from "node:url";
import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "dispatcher",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // PostgreSQL for the *.pg.test.ts files (DATABASE_URL, else testcontainers, else embedded); each file makes its own schema.
    globalSetup: [fileURLToPath(new URL("../../packages/postgres/src/testing/global-setup.ts", import.meta.url))],
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
