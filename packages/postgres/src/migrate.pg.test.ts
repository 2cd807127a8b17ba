import { randomBytes } from "node:crypto";
import postgres from "postgres";
import { afterAll, beforeAll, expect, it } from "vitest";
import { readMigrationFiles } from "drizzle-orm/migrator";
import { migrate, MIGRATIONS_FOLDER } from "./migrate.ts";
import { testDatabaseUrl } from "./testing/test-schema.ts";

let sql: postgres.Sql;
const schema = `t_migrate_${randomBytes(4).toString("hex")}`;
beforeAll(() => {
  sql = postgres(testDatabaseUrl(), { max: 6, onnotice: () => undefined });
});
afterAll(async () => {
  await sql`drop schema if exists ${sql(schema)} cascade`;
  await sql.end();
});

it("applies every committed migration once into the target schema, even when started concurrently", async () => {
  const total = readMigrationFiles({ migrationsFolder: MIGRATIONS_FOLDER }).length;
  const applied = await Promise.all(Array.from({ length: 4 }, () => migrate(sql, { schema })));
  expect(applied.reduce((a, b) => a + b, 0)).toBe(total);
  expect(await migrate(sql, { schema })).toBe(0);
  const tables = await sql<{ table_name: string }[]>`select table_name from information_schema.tables where table_schema = ${schema} order by table_name`;
  expect(tables.map((t) => t.table_name)).toEqual(
    [
      "__drizzle_migrations", "ai_accounts", "audit_log", "backlog_items", "build_sessions", "credentials", "decision_log_entries", "decision_source_amendments", "idempotency_keys", "messages", "persons",
      "policies", "policy_acknowledgements", "policy_versions", "projects", "rate_limit_counters", "session_state_events", "webhook_outbox", "webhooks", "workspace_plans", "workspaces",
    ],
  );
  // The hand-written migration: storage parameters of the hot queue tables.
  const [messages] = await sql<{ reloptions: string[] }[]>`
    select c.reloptions from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = ${schema} and c.relname = 'messages'`;
  expect(messages?.reloptions).toContain("autovacuum_vacuum_scale_factor=0.01");
});
