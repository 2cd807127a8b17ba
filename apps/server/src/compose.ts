import { createDashboardApp } from "@agentq/dashboard";
import { createAuthenticator, forgetWorkspaceLimits, type Mailer, type NoticeSettings, type OidcProvider, type WebhookTransport, InProcessRateLimiter, RATE_LIMIT_WINDOW_MS, type Clock, type RateLimiter, type SanctionsScreen, type ServerSecrets } from "@agentq/core";
import { defaultDispatcherSettings, type MaintenanceIntervals, logExhausted, maintenanceTasks, outboxDispatchTask, startPeriodicTasks, type OutboxDispatcherSettings } from "@agentq/dispatcher";
import { DEFAULT_PEOPLE_SETTINGS, PEOPLE_LIMITS, type PasswordHasher, type PeopleSettings } from "@agentq/core";
import { createMcpApp } from "@agentq/mcp";
import { createOAuthApp } from "@agentq/oauth";
import { createPgDeps, listenForOutboxDeliveries, PgRateLimiter, PLAN_CHANGED_CHANNEL, type PgDeps } from "@agentq/postgres";
import { createRestApp, type OriginSettings, type ServedRequest } from "@agentq/rest";
import { argon2PasswordHasher, aesGcmSecretSealer, createHttpWebhookTransport, type Logger } from "@agentq/runtime";
import type postgres from "postgres";

/** The message of the access-log line written for every request answered (`msg` in the JSON). */
export const ACCESS_LOG_MESSAGE = "request served";

/** The assembled service: one fetch handler for REST, MCP, the metadata documents and the dashboard. */
export interface ComposedService {
  deps: PgDeps;
  /** Routes /v1 to the REST app, /oauth/authorize to the dashboard (the consent page), the other /oauth/* and the authorization server metadata to the OAuth app, /mcp and the other /.well-known/* to the MCP app, everything else to the dashboard. */
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
 * either evicts it in both), and the apps (REST, MCP, the dashboard) behind one fetch handler.
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
  /**
   * The mail port (`createMailer`: SMTP or .eml files); `runService` always passes one. Without
   * it, operations that mail give 503 SVC_SERVICE_UNAVAILABLE.
   */
  mailer?: Mailer;
  /** The designated agent shown by GET /v1/notices/intake (SVC_NOTICE_AGENT_*); default none. */
  noticeAgent?: NoticeSettings["designatedAgent"];
  /** Intervals of the background maintenance (tests); default DEFAULT_MAINTENANCE_INTERVALS. */
  maintenance?: MaintenanceIntervals;
  /** The identity provider people may sign in with (SVC_OIDC_*); none by default. */
  oidc?: OidcProvider;
  /** People's sign-in: settings (default: sign-up open, 30 min idle, 12 h absolute), request origin (trusted proxies, country header), password hasher (default argon2id). */
  people?: { settings?: PeopleSettings; origin?: OriginSettings; passwords?: PasswordHasher };
}): ComposedService {
  const base = createPgDeps({ sql: p.sql, secrets: p.secrets, ...(p.clock === undefined ? {} : { clock: p.clock }) });
  const authenticator = createAuthenticator(base);
  const webhookTransport = p.webhooks?.transport ?? createHttpWebhookTransport();
  base.webhookTransport = webhookTransport;
  const mode = p.rateLimiter ?? "memory";
  const rateLimiter: RateLimiter | undefined = mode === "off" ? undefined : mode === "postgres" ? new PgRateLimiter(p.sql) : new InProcessRateLimiter();
  const deps: PgDeps = Object.assign(base, {
    credentialCache: authenticator,
    people: { passwords: p.people?.passwords ?? argon2PasswordHasher(), settings: p.people?.settings ?? DEFAULT_PEOPLE_SETTINGS, sealer: aesGcmSecretSealer(p.secrets.pepper) },
    publicBaseUrl: p.publicBaseUrl,
    noticeSettings: { designatedAgent: p.noticeAgent ?? null },
    ...(rateLimiter === undefined ? {} : { rateLimiter }),
    ...(p.sanctions === undefined ? {} : { sanctions: p.sanctions }),
    ...(p.mailer === undefined ? {} : { mailer: p.mailer }),
    ...(p.oidc === undefined ? {} : { oidc: p.oidc }),
  });
  // The access log: one info line per request answered, REST and MCP alike (README, Operating it).
  const onRequestServed = (entry: ServedRequest) => p.logger.info(entry, ACCESS_LOG_MESSAGE);
  const rest = createRestApp(deps, { authenticator, logger: p.logger, onRequestServed, ...(p.commit === undefined ? {} : { commit: p.commit }), ...(p.people?.origin === undefined ? {} : { origin: p.people.origin }) });
  const mcp = createMcpApp(deps, {
    authenticator,
    publicBaseUrl: p.publicBaseUrl,
    onUnexpectedError: (error, requestId) => p.logger.error({ err: error, request_id: requestId }, "mcp tool fault"),
    onRequestServed,
  });
  const dashboard = createDashboardApp(deps, { onRequestServed, logger: p.logger, ...(p.people?.origin === undefined ? {} : { origin: p.people.origin }) });
  const oauth = createOAuthApp(deps, {
    publicBaseUrl: p.publicBaseUrl,
    onUnexpectedError: (error, requestId) => p.logger.error({ err: error, request_id: requestId }, "oauth fault"),
    onRequestServed,
  });
  return {
    deps,
    fetch(request, env) {
      const path = new URL(request.url).pathname;
      if (path === "/v1" || path.startsWith("/v1/")) return rest.fetch(request, env);
      // The authorization endpoint is a page a person answers (sign-in, consent): the dashboard serves it.
      if (path === "/oauth/authorize") return dashboard.fetch(request, env);
      if (path === "/oauth" || path.startsWith("/oauth/") || path === "/.well-known/oauth-authorization-server") return oauth.fetch(request, env);
      if (path === "/mcp" || path.startsWith("/mcp/") || path.startsWith("/.well-known/")) return mcp.fetch(request, env);
      return dashboard.fetch(request, env);
    },
    startBackground() {
      // Counters of finished windows are dropped a few windows later (a window is one minute).
      const purgePeople = [
        { name: "purge-sign-in-failures", intervalMs: PEOPLE_LIMITS.throttleWindowMs, run: () => deps.stores.signInThrottle.purgeBefore({ before: new Date(deps.clock.now().getTime() - PEOPLE_LIMITS.throttleWindowMs) }) },
        { name: "purge-person-sessions", intervalMs: 60 * 60_000, run: () => deps.stores.personSessions.purgeBefore({ before: new Date(deps.clock.now().getTime() - 24 * 60 * 60_000) }) },
      ];
      const purgeRateLimits = rateLimiter === undefined ? [] : [{ name: "purge-rate-limit-counters", intervalMs: RATE_LIMIT_WINDOW_MS, run: () => rateLimiter.purgeBefore({ before: new Date(deps.clock.now().getTime() - 5 * RATE_LIMIT_WINDOW_MS) }) }];
      return startPeriodicTasks([...maintenanceTasks(deps, p.maintenance), outboxDispatchTask(deps, defaultDispatcherSettings(webhookTransport, { wakeups: (wake) => listenForOutboxDeliveries(p.sql, wake), ...p.webhooks?.dispatch }), (pass) => logExhausted(p.logger, pass)), ...purgeRateLimits, ...purgePeople], {
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
