import { defineProject } from "vitest/config";
export default defineProject({
  test: { name: "dashboard", include: ["src/**/*.test.ts", "src/**/*.test.tsx"], globalSetup: [], testTimeout: 30_000, hookTimeout: 60_000 },
});
