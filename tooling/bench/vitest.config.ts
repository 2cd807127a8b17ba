import { defineProject } from "vitest/config";

// Unit tests of the benchmark's arithmetic (percentiles, ratios, the table); the benchmark
// itself runs with `pnpm bench`, never as a test.
export default defineProject({
  test: {
    name: "bench",
    include: ["src/**/*.test.ts"],
  },
});
