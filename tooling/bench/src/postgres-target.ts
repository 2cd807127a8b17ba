import { startEmbeddedPostgres, type EmbeddedPostgres } from "@agentq/postgres";
import { randomBytes } from "node:crypto";
import { tmpdir } from "node:os";
import { join } from "node:path";
import postgres from "postgres";

/** The PostgreSQL server of a run and the fresh database the run works in. */
export interface BenchDatabase {
  /** "external" (DATABASE_URL) or "embedded". */
  kind: "external" | "embedded";
  /** URL of the run's own database. */
  url: string;
  name: string;
  /** The server's version string (`select version()`). */
  version: string;
  /** Drops the run's database, then stops the embedded server when this run started it. */
  close(): Promise<void>;
}

/**
 * Starts (or reaches) PostgreSQL: DATABASE_URL when set, else the embedded server on a data
 * folder of its own under the OS temporary folder (never the project's `.data/`), kept between
 * runs so initdb happens once. Creates a fresh database `agentq_bench_<hex>` on it.
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
    embedded = await startEmbeddedPostgres({ dataDir, settings: { max_connections: "200" } });
    serverUrl = embedded.url;
  }
  const name = `agentq_bench_${randomBytes(4).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => undefined });
  try {
    await admin`create database ${admin(name)}`;
  } catch (e) {
    await admin.end({ timeout: 1 });
    await embedded?.stop();
    throw e;
  }
  const [row] = await admin<{ version: string }[]>`select version() as version`;
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    kind: embedded ? "embedded" : "external",
    url: url.toString(),
    name,
    version: row?.version ?? "unknown",
    async close() {
      try {
        await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name} and pid <> pg_backend_pid()`;
        await admin`drop database if exists ${admin(name)}`;
      } finally {
        await admin.end({ timeout: 5 });
        await embedded?.stop();
      }
    },
  };
}
