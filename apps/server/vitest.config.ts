import { fileURLToPath } from "node:url";
import { defineProject } from "vitest/config";

export default defineProject({
  test: {
    name: "server",
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    globalSetup: [fileURLToPath(new URL("../../packages/postgres/src/testing/global-setup.ts", import.meta.url))],
    testTimeout: 60_000,
    // A server process started in a hook may take a minute on a loaded 2-core machine (tsx compiles the sources).
    hookTimeout: 120_000,
  },
});
