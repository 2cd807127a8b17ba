import type { TestProject } from "vitest/node";
import { startTestDatabase, type TestDatabase } from "./test-database.ts";

declare module "vitest" {
  export interface ProvidedContext {
    /** The URL of the test run's PostgreSQL, provided by this global setup. */
    agentqDatabaseUrl: string;
  }
}

// Every project of one vitest run that lists this global setup shares one server: the first
// setup starts it, the last teardown stops it. Kept on globalThis because each project may load
// its own copy of this module.
interface Shared {
  database: Promise<TestDatabase>;
  users: number;
}
const KEY = Symbol.for("agentq.postgres.testDatabase");
const registry = globalThis as typeof globalThis & { [KEY]?: Shared };

/**
 * Vitest global setup: starts (or joins) the run's test PostgreSQL and provides its URL to the
 * test workers as `inject("agentqDatabaseUrl")`. Wire it in a project's vitest config as
 * `globalSetup: [fileURLToPath(import.meta.resolve("@agentq/postgres/testing/global-setup"))]`
 * or by relative path.
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const shared = (registry[KEY] ??= { database: startTestDatabase(), users: 0 });
  shared.users += 1;
  const database = await shared.database;
  project.provide("agentqDatabaseUrl", database.url);
  return async () => {
    shared.users -= 1;
    if (shared.users === 0) {
      delete registry[KEY];
      await database.stop();
    }
  };
}
