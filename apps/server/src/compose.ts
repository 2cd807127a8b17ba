import { createDashboardApp } from "@agentq/dashboard";
import { type DispatchPass, type Mailer, type NoticeSettings, type OidcProvider, type WebhookTransport, RATE_LIMIT_WINDOW_MS, type Clock, type SanctionsScreen, type ServerSecrets } from "@agentq/core";
import { defaultDispatcherSettings, type MaintenanceIntervals, logExhausted, maintenanceTasks, outboxDispatchTask, startPeriodicTasks, type OutboxDispatcherSettings } from "@agentq/dispatcher";
import { PEOPLE_LIMITS, type PasswordHasher, type PeopleSettings } from "@agentq/core";
import { McpSessions, createMcpApp } from "@agentq/mcp";
import { createOAuthApp } from "@agentq/oauth";
import { listenForOutboxDeliveries, type PgDeps } from "@agentq/postgres";
import { createRestApp, LOG_KEY_PATH } from "@agentq/rest";
import { afterAnswerWorkLoggedTo, type AfterAnswerWork, type EdgeTracing, type OriginSettings, type ServedRequest } from "@agentq/http";
import { ACCESS_LOG_MESSAGE, createServiceDeps, type Logger } from "@agentq/runtime";
import type postgres from "postgres";

/** The assembled service: one fetch handler for REST, MCP, the metadata documents and the dashboard. */
export interface ComposedService {
  deps: PgDeps;
  /** Routes /v1 and the audit log's key document to the REST app, /oauth/authorize to the dashboard (the consent page), the other /oauth/* and the authorization server metadata to the OAuth app, /mcp and the other /.well-known/* to the MCP app, everything else to the dashboard. */
  fetch(request: Request, env?: unknown): Response | Promise<Response>;
  /** Starts the background maintenance (sealer, sweeps) and the webhook outbox dispatcher; returns its stopper. */
  startBackground(): { stop(): Promise<void> };
  /** Work that runs after an answer (a password reset's): `settled()` resolves when none is pending; stopping awaits it. */
  afterAnswer: Pick<AfterAnswerWork, "settled">;
  /** Ends the MCP sessions and their GET streams (the drain's first step: they would never end by themselves). */
  draining(): void;
  /** Ends the MCP sessions and stops the LISTEN connection (the caller ends the pool). */
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
 * The all-in-one composition of `pnpm start` and the tests that run the real server: the
 * service's deps (`createServiceDeps`: one credential cache shared by REST and MCP, so a revoke
 * through either evicts it in both), and the apps (REST, MCP, OAuth, the dashboard) behind one
 * fetch handler.
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
  /** Verifier keys of the audit log's earlier checkpoint keys, still listed (SVC_LOG_PREVIOUS_KEYS); default none. */
  previousLogKeys?: readonly string[];
  /** People's sign-in: settings (default: sign-up open, 30 min idle, 12 h absolute), request origin (trusted proxies, country header), password hasher (default argon2id). */
  people?: { settings?: PeopleSettings; origin?: OriginSettings; passwords?: PasswordHasher };
  /** False: MCP initialize opens no session (no push); for a server of several workers. Default true. */
  mcpSessions?: boolean;
  /** Every answered request (runService's: the access log and the request metrics); default the access log to `logger`. */
  onRequestServed?: (entry: ServedRequest) => void;
  /** Every webhook dispatcher pass, beside the exhausted deliveries' log lines (the delivery metrics); default none. */
  onWebhookPass?: (pass: DispatchPass) => void;
  /** OpenTelemetry at the edges (runService's, when OTLP export is configured); default none: no span is started. */
  tracing?: EdgeTracing;
}): ComposedService {
  const { deps, authenticator, rateLimiter, webhookTransport } = createServiceDeps({ ...p, ...(p.webhooks?.transport === undefined ? {} : { webhookTransport: p.webhooks.transport }) });
  // Work after an answer (sign-ups, password resets; REST and the dashboard) is logged when it fails, never lost silently.
  const afterAnswer = afterAnswerWorkLoggedTo(p.logger);
  // The access log: one info line per request answered, REST and MCP alike (README, Operating it).
  const onRequestServed = p.onRequestServed ?? ((entry: ServedRequest) => p.logger.info(entry, ACCESS_LOG_MESSAGE));
  const tracing = p.tracing === undefined ? {} : { tracing: p.tracing };
  const rest = createRestApp(deps, { authenticator, logger: p.logger, onRequestServed, afterAnswer, ...tracing, ...(p.commit === undefined ? {} : { commit: p.commit }), ...(p.people?.origin === undefined ? {} : { origin: p.people.origin }) });
  // This process's MCP sessions: ended when draining starts (their streams would hold the drain) and on close.
  // A server of several workers (AGENTQ_WORKERS) answers MCP statelessly: node:cluster hands each
  // connection to any worker, so a session's later requests could reach a process without it.
  const sessions = new McpSessions(deps, { stateless: p.mcpSessions === false, inbox: { onError: (error) => p.logger.warn({ err: error }, "mcp inbox watch: a timed look failed; the next one covers the gap") } });
  const mcp = createMcpApp(deps, {
    sessions,
    authenticator,
    publicBaseUrl: p.publicBaseUrl,
    onUnexpectedError: (error, requestId) => p.logger.error({ err: error, request_id: requestId }, "mcp tool fault"),
    onRequestServed,
    ...tracing,
  });
  const dashboard = createDashboardApp(deps, { onRequestServed, logger: p.logger, afterAnswer, ...tracing, ...(p.people?.origin === undefined ? {} : { origin: p.people.origin }) });
  const oauth = createOAuthApp(deps, {
    publicBaseUrl: p.publicBaseUrl,
    ...(p.people?.origin === undefined ? {} : { origin: p.people.origin }),
    onUnexpectedError: (error, requestId) => p.logger.error({ err: error, request_id: requestId }, "oauth fault"),
    onRequestServed,
    ...tracing,
  });
  return {
    deps,
    fetch(request, env) {
      const path = new URL(request.url).pathname;
      if (path === "/v1" || path.startsWith("/v1/") || path === LOG_KEY_PATH) return rest.fetch(request, env);
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
        // The anonymous routes' counters (ANONYMOUS_LIMITS) once their window has ended.
        { name: "purge-anonymous-limit-counters", intervalMs: PEOPLE_LIMITS.throttleWindowMs, run: () => deps.stores.anonymousLimits.purgeBefore({ before: deps.clock.now() }) },
      ];
      const purgeRateLimits = rateLimiter === undefined ? [] : [{ name: "purge-rate-limit-counters", intervalMs: RATE_LIMIT_WINDOW_MS, run: () => rateLimiter.purgeBefore({ before: new Date(deps.clock.now().getTime() - 5 * RATE_LIMIT_WINDOW_MS) }) }];
      return startPeriodicTasks([...maintenanceTasks(deps, p.maintenance), outboxDispatchTask(deps, defaultDispatcherSettings(webhookTransport, { wakeups: (wake) => listenForOutboxDeliveries(p.sql, wake), ...p.webhooks?.dispatch }), (pass) => {
        logExhausted(p.logger, pass);
        p.onWebhookPass?.(pass);
      }), ...purgeRateLimits, ...purgePeople], {
        onError: (task, error) => p.logger.error({ err: error, task }, "background task failed"),
        onWork: (task, count) => p.logger.debug({ task, count }, "background task did work"),
      });
    },
    afterAnswer,
    draining: () => sessions.close(),
    close: async () => {
      sessions.close();
      await deps.close();
    },
  };
}
