import { fileURLToPath } from "node:url";
import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "postgres",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    // One PostgreSQL for the run (DATABASE_URL, else testcontainers, else embedded); each test
    // file makes its own schema.
    globalSetup: [fileURLToPath(new URL("./src/testing/global-setup.ts", import.meta.url))],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
