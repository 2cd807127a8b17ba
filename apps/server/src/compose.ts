import { createAuthenticator, type ServerSecrets } from "@agentq/core";
import { maintenanceTasks, startPeriodicTasks } from "@agentq/dispatcher";
import { createMcpApp } from "@agentq/mcp";
import { createPgDeps, type PgDeps } from "@agentq/postgres";
import { createRestApp } from "@agentq/rest";
import type postgres from "postgres";
import type { Logger } from "./logger.ts";

/** The assembled service: one fetch handler for REST, MCP and the metadata documents. */
export interface ComposedService {
  deps: PgDeps;
  /** Routes /mcp and /.well-known/* to the MCP app and everything else to the REST app. */
  fetch(request: Request, env?: unknown): Response | Promise<Response>;
  /** Starts the background maintenance (sealer, sweeps); returns its stopper. */
  startBackground(): { stop(): Promise<void> };
  /** Stops the LISTEN connection (the caller ends the pool). */
  close(): Promise<void>;
}

/**
 * The composition root shared by `pnpm start`, the standalone MCP server and the tests that run
 * the real server: PostgreSQL deps, one credential cache shared by REST and MCP (a revoke through
 * either evicts it in both), and the two apps behind one fetch handler.
 */
export function composeService(p: { sql: postgres.Sql; secrets: ServerSecrets; publicBaseUrl: string; logger: Logger; commit?: string }): ComposedService {
  const base = createPgDeps({ sql: p.sql, secrets: p.secrets });
  const authenticator = createAuthenticator(base);
  const deps: PgDeps = Object.assign(base, { credentialCache: authenticator, publicBaseUrl: p.publicBaseUrl });
  const rest = createRestApp(deps, { authenticator, logger: p.logger, ...(p.commit === undefined ? {} : { commit: p.commit }) });
  const mcp = createMcpApp(deps, {
    authenticator,
    publicBaseUrl: p.publicBaseUrl,
    onUnexpectedError: (error, requestId) => p.logger.error({ err: error, request_id: requestId }, "mcp tool fault"),
  });
  return {
    deps,
    fetch(request, env) {
      const path = new URL(request.url).pathname;
      if (path === "/mcp" || path.startsWith("/mcp/") || path.startsWith("/.well-known/")) return mcp.fetch(request, env);
      return rest.fetch(request, env);
    },
    startBackground() {
      return startPeriodicTasks(maintenanceTasks(deps), {
        onError: (task, error) => p.logger.error({ err: error, task }, "background task failed"),
        onWork: (task, count) => p.logger.debug({ task, count }, "background task did work"),
      });
    },
    close: () => deps.close(),
  };
}
