import { fileURLToPath } from "node:url";
import { defineProject, type UserWorkspaceConfig } from "vitest/config";

/**
 * The vitest project of a package whose tests need PostgreSQL (the *.pg.test.ts files): one
 * server for the run from the global setup (DATABASE_URL, else testcontainers, else embedded);
 * each test file makes its own schema.
 */
export function pgTestProject(name: string, timeouts: { testTimeout: number; hookTimeout: number }): UserWorkspaceConfig {
  return defineProject({
    test: {
      name,
      include: ["src/**/*.test.ts", "test/**/*.test.ts"],
      globalSetup: [fileURLToPath(new URL("./global-setup.ts", import.meta.url))],
      ...timeouts,
    },
  });
}
