import { defineProject } from "vitest/config";

// The checker's unit tests, and the short fault run (its own embedded PostgreSQL, two server
// processes, about 60 s), which stops by itself well inside the timeout.
export default defineProject({
  test: {
    name: "faults",
    include: ["src/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
