import { migrate, startEmbeddedPostgres, type EmbeddedPostgres } from "@agentq/postgres";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";

/** The PostgreSQL server of a run and the fresh database the run works in. */
export interface BenchDatabase {
  /** "external" (DATABASE_URL) or "embedded". */
  kind: "external" | "embedded";
  /** URL of the run's own database (the server's). */
  url: string;
  /**
   * URL of a second database with the same schema, where the limit (L1, pgbench) writes: its
   * rows never reach the server's background work (the audit sealer), as they would in one database.
   */
  limitUrl: string;
  name: string;
  /** The server's version string (`select version()`). */
  version: string;
  /** Drops the run's database, then stops the embedded server when this run started it. */
  close(): Promise<void>;
}

/**
 * Starts (or reaches) PostgreSQL: DATABASE_URL when set, else the embedded server on a data
 * folder of its own under the OS temporary folder (never the project's `.data/`), kept between
 * runs so initdb happens once. Creates a fresh database `agentq_bench_<hex>` on it (the server
 * migrates it) and `agentq_bench_<hex>_limit`, migrated here.
 */
export async function openBenchDatabase(log: (text: string) => void): Promise<BenchDatabase> {
  const external = process.env.DATABASE_URL?.trim();
  let embedded: EmbeddedPostgres | null = null;
  let serverUrl: string;
  if (external) {
    serverUrl = external;
    log(`PostgreSQL: DATABASE_URL (${new URL(external).host})`);
  } else {
    const dataDir = join(tmpdir(), "agentq-bench-pg");
    log(`PostgreSQL: embedded, data folder ${dataDir}`);
    // max_wal_size 4 GB (default 1 GB): the drains' writes otherwise force a checkpoint every 12 s.
    embedded = await startEmbeddedPostgres({ dataDir, settings: { max_connections: "200", max_wal_size: "4GB" } });
    serverUrl = embedded.url;
  }
  const name = `agentq_bench_${randomBytes(4).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => undefined });
  const limitName = `${name}_limit`;
  try {
    await admin`create database ${admin(name)}`;
    await admin`create database ${admin(limitName)}`;
  } catch (e) {
    await admin.end({ timeout: 1 });
    await embedded?.stop();
    throw e;
  }
  const [row] = await admin<{ version: string }[]>`select version() as version`;
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const limitUrl = new URL(serverUrl);
  limitUrl.pathname = `/${limitName}`;
  const limitSql = postgres(limitUrl.toString(), { max: 1, onnotice: () => undefined });
  try {
    await migrate(limitSql);
  } finally {
    await limitSql.end({ timeout: 5 });
  }
  return {
    kind: embedded ? "embedded" : "external",
    url: url.toString(),
    limitUrl: limitUrl.toString(),
    name,
    version: row?.version ?? "unknown",
    async close() {
      try {
        for (const db of [name, limitName]) {
          await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${db} and pid <> pg_backend_pid()`;
          await admin`drop database if exists ${admin(db)}`;
        }
      } finally {
        await admin.end({ timeout: 5 });
        await embedded?.stop();
      }
    },
  };
}
