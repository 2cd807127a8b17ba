// Runs the MCP endpoint alone (`tsx apps/mcp/src/main.ts`): /mcp and the protected-resource
// metadata on HOST:PORT, over DATABASE_URL or the embedded PostgreSQL, configured like
// `pnpm start` (HOST, PORT, DATABASE_URL, SVC_SECRET_KEY, PUBLIC_BASE_URL, LOG_LEVEL).
//
// The composition (PostgreSQL deps, secrets, the credential cache shared with REST) belongs to
// apps/server. It is imported by relative path on purpose: @agentq/server depends on
// @agentq/mcp, so a package dependency back would make the workspace graph cyclic.
import type { AddressInfo } from "node:net";
import { DomainError, toErrorEnvelope } from "@agentq/core";
import { serve } from "@hono/node-server";
import { composeService, createLogger, loadSecrets, openDatabase, readEnv } from "../../server/src/index.ts";

const env = readEnv();
const logger = createLogger(env.logLevel);
const db = await openDatabase(env);
const { secrets } = loadSecrets(env);
const service = composeService({ sql: db.sql, secrets, publicBaseUrl: env.publicBaseUrl, logger });

// Only the MCP routes answer; REST is served by `pnpm start`.
function fetch(request: Request): Response | Promise<Response> {
  const path = new URL(request.url).pathname;
  if (path === "/mcp" || path.startsWith("/mcp/") || path.startsWith("/.well-known/oauth-protected-resource")) return service.fetch(request);
  const requestId = service.deps.ids.next();
  const envelope = toErrorEnvelope(new DomainError("SVC_ROUTE_NOT_FOUND", "This process serves only the MCP endpoint at /mcp."), requestId);
  return Response.json(envelope, { status: 404, headers: { "X-Request-Id": requestId, "Cache-Control": "no-store" } });
}

const server = serve({ fetch, hostname: env.host, port: env.port }, (info: AddressInfo) => {
  logger.info({ host: info.address, port: info.port, mcp_url: `${env.publicBaseUrl}/mcp` }, "agentq MCP endpoint listening");
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
