import { migrate, resilientPoolOptions, startEmbeddedPostgres, type EmbeddedPostgres } from "@agentq/postgres";
import { join } from "node:path";
import postgres from "postgres";
import type { ServerEnv } from "./env.ts";

/** An open database: the pool, where it came from, and how to let go of it. */
export interface OpenDatabase {
  sql: postgres.Sql;
  /** "external" for DATABASE_URL, "embedded" for the embedded PostgreSQL. */
  kind: "external" | "embedded";
  /** Ends the pool, then stops the embedded server when this process started it. */
  close(): Promise<void>;
}

/**
 * Opens the database `pnpm start` and `pnpm bootstrap` share: DATABASE_URL when set, else the
 * embedded PostgreSQL under `<dataDir>/pg` (preferring port `embeddedPostgresPort` when given;
 * reused when another process already runs it), and
 * applies the migrations. `pnpm bootstrap` and `pnpm admin` pass `stopEmbeddedOnClose: false`,
 * so a server they started stays up for `pnpm start` (which reuses it) instead of being stopped
 * under a running server that reused it.
 */
export async function openDatabase(
  env: Pick<ServerEnv, "databaseUrl" | "dataDir" | "embeddedPostgresPort">,
  options: { max?: number; onNotice?: (text: string) => void; /** Short-lived commands leave the embedded server running for the next process (default true: stop it). */ stopEmbeddedOnClose?: boolean } = {},
): Promise<OpenDatabase> {
  let embedded: EmbeddedPostgres | null = null;
  let url = env.databaseUrl;
  if (url === null) {
    embedded = await startEmbeddedPostgres({ dataDir: join(env.dataDir, "pg"), ...(env.embeddedPostgresPort === null ? {} : { port: env.embeddedPostgresPort }) });
    url = embedded.url;
  }
  const sql = postgres(url, {
    max: options.max ?? 4,
    onnotice: (n) => options.onNotice?.(String(n.message)),
    connection: { application_name: "agentq" },
    ...resilientPoolOptions,
  });
  try {
    await migrate(sql);
  } catch (e) {
    await sql.end({ timeout: 1 });
    await embedded?.stop();
    throw e;
  }
  return {
    sql,
    kind: embedded ? "embedded" : "external",
    async close() {
      await sql.end({ timeout: 5 });
      if (options.stopEmbeddedOnClose ?? true) await embedded?.stop();
    },
  };
}
