// `pnpm start`: REST at /v1, MCP at /mcp and the metadata documents on one port, over
// DATABASE_URL or the embedded PostgreSQL, with the background maintenance running.
import { serve } from "@hono/node-server";
import type { AddressInfo } from "node:net";
import { composeService } from "./compose.ts";
import { openDatabase } from "./database.ts";
import { readEnv } from "./env.ts";
import { createLogger } from "./logger.ts";
import { loadSanctionsScreen } from "./sanctions-file.ts";
import { loadSecrets } from "./secrets.ts";

const DRAIN_TIMEOUT_MS = 25_000;

async function main(): Promise<void> {
  const env = readEnv();
  const logger = createLogger(env.logLevel);
  const db = await openDatabase(env, { onNotice: (text) => logger.debug({ notice: text }, "postgres notice") });
  logger.info({ database: db.kind }, "database ready, migrations applied");
  const { secrets, source } = loadSecrets(env);
  if (source !== "env" && db.kind === "external") logger.warn("SVC_SECRET_KEY is not set: using the key in the data folder; set SVC_SECRET_KEY in production so every replica shares it.");
  const sanctions = env.sanctionsListPath === null ? null : loadSanctionsScreen(env.sanctionsListPath);
  if (sanctions !== null) logger.info({ entries: sanctions.entries }, "sanctions list loaded");
  const service = composeService({
    sql: db.sql,
    secrets,
    publicBaseUrl: env.publicBaseUrl,
    logger,
    rateLimiter: env.rateLimiter,
    ...(sanctions === null ? {} : { sanctions: sanctions.screen }),
    ...(process.env.AGENTQ_COMMIT ? { commit: process.env.AGENTQ_COMMIT } : {}),
  });
  const background = service.startBackground();

  const server = serve({ fetch: (request, env) => service.fetch(request, env), hostname: env.host, port: env.port }, (info: AddressInfo) => {
    logger.info({ host: info.address, port: info.port, base_url: env.publicBaseUrl }, "agentq listening");
  });
  server.on("error", (error) => {
    logger.fatal({ err: error }, "server could not listen");
    process.exit(1);
  });

  let draining = false;
  const drain = async (signal: string) => {
    if (draining) return;
    draining = true;
    logger.info({ signal }, "draining: no new connections; in-flight requests and long polls finish");
    const forced = setTimeout(() => {
      logger.warn("drain timed out; exiting");
      process.exit(1);
    }, DRAIN_TIMEOUT_MS + 5_000);
    forced.unref();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      if ("closeIdleConnections" in server) server.closeIdleConnections();
    });
    await background.stop();
    await service.close();
    await db.close();
    logger.info("stopped cleanly");
    process.exit(0);
  };
  process.on("SIGTERM", () => void drain("SIGTERM"));
  process.on("SIGINT", () => void drain("SIGINT"));
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
