import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { inject } from "vitest";
import { migrate } from "../migrate.ts";
// Brings the `agentqDatabaseUrl` ProvidedContext augmentation into every program that imports this file.
import type {} from "./global-setup.ts";

/**
 * The URL of the test PostgreSQL inside a test worker: DATABASE_URL when set, else the one the
 * global setup provided.
 * @throws when neither is there (the project's vitest config lacks the global setup).
 */
export function testDatabaseUrl(): string {
  const fromEnv = process.env.DATABASE_URL;
  if (fromEnv) return fromEnv;
  const provided = inject("agentqDatabaseUrl");
  if (typeof provided === "string" && provided !== "") return provided;
  throw new Error("No test database: set DATABASE_URL, or add @agentq/postgres's src/testing/global-setup.ts to this project's vitest globalSetup.");
}

/** One test file's private schema on the test PostgreSQL. */
export interface TestSchema {
  /** The schema name (`t_` plus random hex). */
  schema: string;
  /** The server URL (the schema is not in it: connect with `connect()` or set search_path yourself). */
  url: string;
  /** A pool whose connections have search_path set to the schema, migrations applied. */
  sql: postgres.Sql;
  /** Another pool on the same schema (its own connections), e.g. for a second process in a test. */
  connect(options?: { max?: number }): postgres.Sql;
  /** Ends every pool it made and drops the schema. */
  drop(): Promise<void>;
}

/**
 * Creates a fresh schema with every migration applied, for one test file (STYLE §Tests: one
 * schema per test file). Call it in `beforeAll` and `drop()` in `afterAll`.
 */
export async function createTestSchema(options: { max?: number } = {}): Promise<TestSchema> {
  const url = testDatabaseUrl();
  const schema = `t_${randomBytes(6).toString("hex")}`;
  const admin = postgres(url, { max: 1, onnotice: () => undefined });
  await migrate(admin, { schema });
  const pools: postgres.Sql[] = [];
  const connect = (o: { max?: number } = {}) => {
    const pool = postgres(url, { max: o.max ?? 5, onnotice: () => undefined, connection: { search_path: schema } });
    pools.push(pool);
    return pool;
  };
  const sql = connect({ max: options.max ?? 5 });
  return {
    schema,
    url,
    sql,
    connect,
    drop: async () => {
      await Promise.all(pools.map((p) => p.end({ timeout: 5 })));
      await admin`drop schema if exists ${admin(schema)} cascade`;
      await admin.end({ timeout: 5 });
    },
  };
}
