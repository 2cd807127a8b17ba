import { fileURLToPath } from "node:url";
import { readMigrationFiles } from "drizzle-orm/migrator";
import type postgres from "postgres";

/** The folder of committed migrations (drizzle-kit's format: SQL files plus meta/_journal.json). */
export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../migrations", import.meta.url));

/** The table, inside the target schema, that records applied migrations (drizzle's layout). */
const MIGRATIONS_TABLE = "__drizzle_migrations";

/**
 * Applies the committed migrations that are not yet applied to `schema` (default `public`), in
 * one transaction: creates the schema if needed, takes a transaction-scoped advisory lock keyed
 * by the schema (so concurrently starting processes apply them once), sets the search path for
 * the transaction, runs each pending migration's statements in journal order and records them
 * in `<schema>.__drizzle_migrations` (the same layout drizzle-orm's migrator uses, so
 * drizzle-kit tooling reads it). Idempotent. Returns how many migrations it applied.
 */
export async function migrate(sql: postgres.Sql, options: { schema?: string } = {}): Promise<number> {
  const schema = options.schema ?? "public";
  const migrations = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER });
  const applied = await sql.begin(async (tx) => {
    await tx`select pg_advisory_xact_lock(hashtextextended(${"agentq.migrate:" + schema}, 0))`;
    await tx`create schema if not exists ${tx(schema)}`;
    await tx`select set_config('search_path', ${schema}, true)`;
    await tx`
      create table if not exists ${tx(schema)}.${tx(MIGRATIONS_TABLE)} (
        id serial primary key,
        hash text not null,
        created_at bigint
      )`;
    const [last] = await tx<{ createdAt: string | null }[]>`
      select created_at as "createdAt" from ${tx(schema)}.${tx(MIGRATIONS_TABLE)} order by created_at desc limit 1`;
    const lastMillis = last?.createdAt == null ? -1 : Number(last.createdAt);
    let count = 0;
    for (const migration of migrations) {
      if (migration.folderMillis <= lastMillis) continue;
      for (const statement of migration.sql) {
        // Committed migration files are the one place whole SQL text is executed as is.
        if (statement.trim() !== "") await tx.unsafe(statement);
      }
      await tx`insert into ${tx(schema)}.${tx(MIGRATIONS_TABLE)} (hash, created_at) values (${migration.hash}, ${migration.folderMillis})`;
      count += 1;
    }
    return count;
  });
  return applied;
}
