import { randomBytes } from "node:crypto";
import postgres from "postgres";

/** A database of its own on the test PostgreSQL, for tests that run the real server process. */
export interface ScratchDatabase {
  url: string;
  /** Drops the database (terminating leftover connections). */
  drop(): Promise<void>;
}

/** Creates an empty database next to the one `serverUrl` names; the server migrates it on start. */
export async function createScratchDatabase(serverUrl: string): Promise<ScratchDatabase> {
  const name = `agentq_scratch_${randomBytes(5).toString("hex")}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => undefined });
  await admin`create database ${admin(name)}`;
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name} and pid <> pg_backend_pid()`;
      await admin`drop database if exists ${admin(name)}`;
      await admin.end({ timeout: 5 });
    },
  };
}
