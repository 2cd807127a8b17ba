// Runs the REST API alone (`pnpm --filter @agentq/rest start`): /v1 on HOST:PORT, over
// DATABASE_URL or the embedded PostgreSQL, configured like `pnpm start` (HOST, PORT,
// DATABASE_URL, SVC_SECRET_KEY, PUBLIC_BASE_URL, LOG_LEVEL). No background maintenance runs
// here: run `pnpm start` or the dispatcher beside it.
//
// The composition (PostgreSQL deps, secrets, the credential cache shared with MCP) belongs to
// apps/server. It is imported by relative path on purpose: @agentq/server depends on
// @agentq/rest, so a package dependency back would make the workspace graph cyclic.
import type { AddressInfo } from "node:net";
import { DomainError, toErrorEnvelope } from "@agentq/core";
import { serve } from "@hono/node-server";
import { composeService, createLogger, loadSecrets, openDatabase, readEnv } from "../../server/src/index.ts";

const env = readEnv();
const logger = createLogger(env.logLevel);
const db = await openDatabase(env);
const { secrets } = loadSecrets(env);
const service = composeService({ sql: db.sql, secrets, publicBaseUrl: env.publicBaseUrl, logger, rateLimiter: env.rateLimiter });

// Only the REST routes answer; MCP is served by `pnpm start` or apps/mcp.
function fetch(request: Request): Response | Promise<Response> {
  const path = new URL(request.url).pathname;
  if (path === "/v1" || path.startsWith("/v1/")) return service.fetch(request);
  const requestId = service.deps.ids.next();
  const envelope = toErrorEnvelope(new DomainError("SVC_ROUTE_NOT_FOUND", "This process serves only the REST API under /v1."), requestId);
  return Response.json(envelope, { status: 404, headers: { "X-Request-Id": requestId, "Cache-Control": "no-store" } });
}

const server = serve({ fetch, hostname: env.host, port: env.port }, (info: AddressInfo) => {
  logger.info({ host: info.address, port: info.port, base_url: `${env.publicBaseUrl}/v1` }, "agentq REST API listening");
});
const stop = (): void => {
  server.close(() => {
    void service
      .close()
      .then(() => db.close())
      .then(() => process.exit(0));
  });
};
process.on("SIGTERM", stop);
process.on("SIGINT", stop);
