import { defineProject } from "vitest/config";
export default defineProject({
  test: { name: "oauth", include: ["src/**/*.test.ts", "test/**/*.test.ts"], globalSetup: [], testTimeout: 30_000, hookTimeout: 60_000 },
});
