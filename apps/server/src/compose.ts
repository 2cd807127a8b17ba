import { createAuthenticator, forgetWorkspaceLimits, type WebhookTransport, InProcessRateLimiter, RATE_LIMIT_WINDOW_MS, type Clock, type RateLimiter, type SanctionsScreen, type ServerSecrets } from "@agentq/core";
import { createHttpWebhookTransport, defaultDispatcherSettings, logExhausted, maintenanceTasks, outboxDispatchTask, startPeriodicTasks, type OutboxDispatcherSettings } from "@agentq/dispatcher";
import { createMcpApp } from "@agentq/mcp";
import { createPgDeps, listenForOutboxDeliveries, PgRateLimiter, PLAN_CHANGED_CHANNEL, type PgDeps } from "@agentq/postgres";
import { createRestApp, type ServedRequest } from "@agentq/rest";
import type postgres from "postgres";
import type { Logger } from "./logger.ts";

/** The message of the access-log line written for every request answered (`msg` in the JSON). */
export const ACCESS_LOG_MESSAGE = "request served";

/** The assembled service: one fetch handler for REST, MCP and the metadata documents. */
export interface ComposedService {
  deps: PgDeps;
  /** Routes /mcp and /.well-known/* to the MCP app and everything else to the REST app. */
  fetch(request: Request, env?: unknown): Response | Promise<Response>;
  /** Starts the background maintenance (sealer, sweeps) and the webhook outbox dispatcher; returns its stopper. */
  startBackground(): { stop(): Promise<void> };
  /** Stops the LISTEN connection (the caller ends the pool). */
  close(): Promise<void>;
}

/** Webhook wiring of the composition root; tests only (production passes none). */
export interface ComposeWebhookOptions {
  /** The transport of probes and deliveries; default the SSRF-guarded HTTP transport (public destinations only). */
  transport?: WebhookTransport;
  /** Dispatcher settings over the defaults (woken by LISTEN/NOTIFY, fallback poll 5 s, lease 60 s, timeout 5 s, retries from 30 s x4). */
  dispatch?: Partial<Omit<OutboxDispatcherSettings, "transport">>;
}

/**
 * The composition root shared by `pnpm start`, the standalone MCP server and the tests that run
 * the real server: PostgreSQL deps, one credential cache shared by REST and MCP (a revoke through
 * either evicts it in both), and the two apps behind one fetch handler.
 */
export function composeService(p: {
  sql: postgres.Sql;
  secrets: ServerSecrets;
  publicBaseUrl: string;
  logger: Logger;
  commit?: string;
  /** Where rate-limit counters live (docs/guard-rails.md): default `memory` (this process). */
  rateLimiter?: "memory" | "postgres" | "off";
  /** Sanctions screening of send participants (default: none). */
  sanctions?: SanctionsScreen;
  /** The core clock (tests); default the system clock. */
  clock?: Clock;
  /** Webhook transport and dispatcher settings (tests); default the guarded HTTP transport. */
  webhooks?: ComposeWebhookOptions;
}): ComposedService {
  const base = createPgDeps({ sql: p.sql, secrets: p.secrets, ...(p.clock === undefined ? {} : { clock: p.clock }) });
  const authenticator = createAuthenticator(base);
  const webhookTransport = p.webhooks?.transport ?? createHttpWebhookTransport();
  base.webhookTransport = webhookTransport;
  const mode = p.rateLimiter ?? "memory";
  const rateLimiter: RateLimiter | undefined = mode === "off" ? undefined : mode === "postgres" ? new PgRateLimiter(p.sql) : new InProcessRateLimiter();
  const deps: PgDeps = Object.assign(base, {
    credentialCache: authenticator,
    publicBaseUrl: p.publicBaseUrl,
    ...(rateLimiter === undefined ? {} : { rateLimiter }),
    ...(p.sanctions === undefined ? {} : { sanctions: p.sanctions }),
  });
  // The access log: one info line per request answered, REST and MCP alike (README, Operating it).
  const onRequestServed = (entry: ServedRequest) => p.logger.info(entry, ACCESS_LOG_MESSAGE);
  const rest = createRestApp(deps, { authenticator, logger: p.logger, onRequestServed, ...(p.commit === undefined ? {} : { commit: p.commit }) });
  const mcp = createMcpApp(deps, {
    authenticator,
    publicBaseUrl: p.publicBaseUrl,
    onUnexpectedError: (error, requestId) => p.logger.error({ err: error, request_id: requestId }, "mcp tool fault"),
    onRequestServed,
  });
  return {
    deps,
    fetch(request, env) {
      const path = new URL(request.url).pathname;
      if (path === "/mcp" || path.startsWith("/mcp/") || path.startsWith("/.well-known/")) return mcp.fetch(request, env);
      return rest.fetch(request, env);
    },
    startBackground() {
      // Counters of finished windows are dropped a few windows later (a window is one minute).
      const purgeRateLimits = rateLimiter === undefined ? [] : [{ name: "purge-rate-limit-counters", intervalMs: RATE_LIMIT_WINDOW_MS, run: () => rateLimiter.purgeBefore({ before: new Date(deps.clock.now().getTime() - 5 * RATE_LIMIT_WINDOW_MS) }) }];
      return startPeriodicTasks([...maintenanceTasks(deps), outboxDispatchTask(deps, defaultDispatcherSettings(webhookTransport, { wakeups: (wake) => listenForOutboxDeliveries(p.sql, wake), ...p.webhooks?.dispatch }), (pass) => logExhausted(p.logger, pass)), ...purgeRateLimits], {
        onError: (task, error) => p.logger.error({ err: error, task }, "background task failed"),
        onWork: (task, count) => p.logger.debug({ task, count }, "background task did work"),
      });
    },
    close: () => deps.close(),
  };
}

/**
 * Makes an operator's plan change (`pnpm admin workspace plan`, another process) take effect in
 * this process at once: the change's NOTIFY drops this process's cached limits of that workspace.
 * Shares the pool's one LISTEN connection. Without it (listen failed) the cache's 30-second bound
 * still holds. Resolves with the stopper.
 */
export async function listenForPlanChanges(sql: postgres.Sql, deps: PgDeps, logger: Logger): Promise<{ stop(): Promise<void> }> {
  try {
    const meta = await sql.listen(PLAN_CHANGED_CHANNEL, (workspaceId) => forgetWorkspaceLimits(deps, workspaceId));
    return { stop: () => meta.unlisten().catch(() => undefined) };
  } catch (error) {
    logger.warn({ err: error }, "could not listen for plan changes; they reach this process within 30 s");
    return { stop: async () => undefined };
  }
}
