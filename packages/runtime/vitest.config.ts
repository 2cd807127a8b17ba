import { defineProject } from "vitest/config";
export default defineProject({
  test: { name: "runtime", include: ["src/**/*.test.ts"], globalSetup: [], testTimeout: 30_000, hookTimeout: 60_000 },
});
