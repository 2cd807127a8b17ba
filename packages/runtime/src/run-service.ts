import { DomainError, forgetWorkspaceLimits, toErrorEnvelope, ulidSource, type CoreDeps, type Mailer, type OidcProvider, type SanctionsScreen, type ServerSecrets } from "@agentq/core";
import { listenHttp, type EdgeTracing, type OriginSettings, type ServedRequest } from "@agentq/http";
import { PLAN_CHANGED_CHANNEL } from "@agentq/postgres";
import type postgres from "postgres";
import { openDatabase } from "./database.ts";
import { publicBaseUrlOf, readEnv, type ServerEnv } from "./env.ts";
import { createAccessLogger, createLogger, type Logger } from "./logger.ts";
import { createMailer } from "./mail/create-mailer.ts";
import { createOpenIdClientProvider } from "./oidc/openid-client-provider.ts";
import { loadSanctionsScreen } from "./sanctions-file.ts";
import { loadSecrets } from "./secrets.ts";
import type { ServiceDepsOptions } from "./service-deps.ts";
import { listenMetrics, loadMetrics, metricsSource, type MetricsEndpoint } from "./telemetry/metrics-endpoint.ts";
import type { ServiceMetrics, WebhookPassCounts } from "./telemetry/prometheus-metrics.ts";
import { startQueueStatsTask } from "./telemetry/queue-stats-task.ts";
import { isBackgroundWorker, readWorkerCount, shouldSupervise, superviseWorkers, workerIndex } from "./workers.ts";

const DRAIN_TIMEOUT_MS = 25_000;
/** How long a stopping server waits for its last spans to reach the OTLP collector. */
const TRACE_FLUSH_TIMEOUT_MS = 2_000;

/** The message of the access-log line written for every request answered (`msg` in the JSON). */
export const ACCESS_LOG_MESSAGE = "request served";

/** The apps' `onRequestServed`: one info line per request answered, REST, MCP, OAuth and the dashboard alike (README, Operating it). */
export function accessLogTo(logger: Pick<Logger, "info">): (entry: ServedRequest) => void {
  return (entry) => logger.info(entry, ACCESS_LOG_MESSAGE);
}

/** postgres.js connection-loss codes: the database went away under a query, which the pool survives. */
const CONNECTION_LOSS = new Set(["CONNECTION_CLOSED", "CONNECTION_DESTROYED", "CONNECTION_ENDED", "ECONNRESET", "ECONNREFUSED", "EPIPE", "57P01", "57P02", "57P03"]);

/** True for an error that means "the database connection was lost", not a bug. */
export function isConnectionLoss(reason: unknown): boolean {
  const code = typeof reason === "object" && reason !== null ? (reason as { code?: unknown }).code : undefined;
  return typeof code === "string" && CONNECTION_LOSS.has(code);
}

/** Something started beside the requests, and how to stop it. */
export interface Stoppable {
  stop(): Promise<void>;
}

/**
 * What `runService` hands a composition root once the process is wired and listening: the
 * configuration, the logger, the open database, the secrets, the service's own base URL, the
 * mail port, and the optional adapters the environment asks for.
 */
export interface ServiceProcess {
  env: ServerEnv;
  logger: Logger;
  sql: postgres.Sql;
  secrets: ServerSecrets;
  /** PUBLIC_BASE_URL, else `http://HOST:PORT` with the port really bound (`publicBaseUrlOf`). */
  publicBaseUrl: string;
  /** Where requests come from (SVC_TRUSTED_PROXIES, SVC_COUNTRY_HEADER), for the HTTP apps. */
  origin: OriginSettings;
  /** This process's worker index when the server runs several workers (AGENTQ_WORKERS), else null. */
  worker: number | null;
  /** The core deps' options from all of the above: pass them to `createServiceDeps` (or `composeService`). */
  depsOptions: ServiceDepsOptions & { mailer: Mailer; oidc?: OidcProvider; sanctions?: SanctionsScreen };
  /** The apps' `onRequestServed`: the access-log line, and the request metrics when METRICS_PORT is set. */
  onRequestServed(entry: ServedRequest): void;
  /** Told of every webhook dispatcher pass (the delivery metrics when METRICS_PORT is set; else nothing). */
  onWebhookPass(pass: WebhookPassCounts): void;
  /** The edges' tracing when OTLP export is configured (pass it to the apps), else undefined: no span is started. */
  tracing: EdgeTracing | undefined;
}

/** What a composition root serves: built by it from the `ServiceProcess`, run by `runService`. */
export interface ServedService {
  /** Answers every request the listener accepts; `bindings` are the Node request and response, passed on to a Hono app as its env. */
  fetch(request: Request, bindings?: unknown): Response | Promise<Response>;
  /**
   * Work beside the requests (the background tasks, LISTENs), started in order once the service
   * serves; each gives its stopper, awaited in the same order when draining.
   */
  tasks?: ReadonlyArray<() => Stoppable | Promise<Stoppable>>;
  /**
   * The background work (audit sealer, sweeps, webhook dispatcher): started after `tasks` in one
   * process only, worker 0 when the server runs several workers (AGENTQ_WORKERS).
   */
  background?: ReadonlyArray<() => Stoppable | Promise<Stoppable>>;
  /**
   * Called once when draining starts, before the listener waits for connections to end: ends what
   * would never end by itself (the MCP sessions' GET streams), so the drain is not held open.
   */
  draining?(): void | Promise<void>;
  /** Lets go of what the composition opened (its deps); awaited after the tasks stopped, before the pool ends. */
  close?(): Promise<void>;
}

/** How a process runs: what its "agentq listening" line says it serves, and the paths it refuses. */
export interface RunServiceOptions {
  /** Fields of the "agentq listening" log line (e.g. `{ serves: "rest", background: false }`). */
  describe: Record<string, unknown>;
  /**
   * Answers 404 SVC_ROUTE_NOT_FOUND (with `refusal` as the message) to any path `matches` refuses,
   * before the app sees it: a process serving one interface says so for the others' paths.
   */
  only?: { matches(path: string): boolean; refusal: string };
  /**
   * How many HTTP workers serve when AGENTQ_WORKERS is unset (default 1): `cores` for the
   * production bundle. With more than one, this process becomes the primary of that many
   * node:cluster workers on one port (packages/runtime/src/workers.ts).
   */
  workers?: number | "cores";
}

/**
 * The one way a server process runs, whatever it serves: reads the environment, opens the
 * database (DATABASE_URL or the embedded PostgreSQL) and applies migrations, loads the secrets,
 * the sanctions list and the mail transport, listens on HOST:PORT, lets `compose` build what to
 * serve from the wired process, starts its tasks and logs `"agentq listening"` with the port;
 * on SIGTERM/SIGINT it stops accepting connections, ends the streams that would never end
 * (`draining`), lets in-flight requests and long polls finish, stops the tasks, closes the
 * composition and the database, and exits 0.
 */
export async function runService(compose: (process: ServiceProcess) => ServedService, options: RunServiceOptions): Promise<void> {
  const env = readEnv();
  const logger = createLogger(env.logLevel);
  const worker = workerIndex();
  // A query whose connection is cut (database restart, pg_terminate_backend, network) may reject
  // where no request awaits it any more (postgres.js internals); that must not take the whole
  // server down. Any other unhandled rejection is a bug: log it and exit, as Node would.
  process.on("unhandledRejection", (reason) => {
    if (isConnectionLoss(reason)) {
      logger.warn({ err: reason }, "database connection lost under a query nobody awaited; continuing");
      return;
    }
    logger.fatal({ err: reason }, "unhandled rejection");
    process.exit(1);
  });
  // Metrics only when METRICS_PORT is set: prom-client is never loaded otherwise.
  const metrics: ServiceMetrics | null = env.metrics === null ? null : await loadMetrics(env.metrics);
  // Tracing only when OTLP export is configured: the OpenTelemetry SDK is never loaded otherwise.
  const tracing = env.tracing ? (await import("./telemetry/otlp-tracing.ts")).startOtlpTracing() : undefined;
  const db = await openDatabase(env, { max: env.poolMax, onNotice: (text) => logger.debug({ notice: text }, "postgres notice") });
  logger.info({ database: db.kind }, "database ready, migrations applied");
  const { secrets, source } = loadSecrets(env);
  if (source !== "env" && db.kind === "external") logger.warn("SVC_SECRET_KEY is not set: using the key in the data folder; set SVC_SECRET_KEY in production so every replica shares it.");
  const sanctions = env.sanctionsListPath === null ? null : loadSanctionsScreen(env.sanctionsListPath);
  if (sanctions !== null) logger.info({ entries: sanctions.entries }, "sanctions list loaded");
  if (env.oidc !== null) logger.info({ issuer: env.oidc.issuer, label: env.oidc.label }, "OIDC sign-in enabled");
  const mail = createMailer(env);
  logger.info({ mail: mail.describe }, "mail transport");
  // Checked in the background: an SMTP server that is down at start-up must not keep the API down.
  mail.verify().catch((error: unknown) => logger.warn({ err: error, mail: mail.describe }, "the SMTP server could not be reached or refused the login; mails will fail until it can"));
  // The socket listens first: without PUBLIC_BASE_URL the service's own origin (the origin
  // check, the OAuth issuer, the MCP metadata) is http://HOST:PORT with the port actually bound,
  // which PORT=0 only tells once listening. Nothing is accepted before the service is composed
  // (composing is synchronous, within the listening callback's turn).
  const holder: { service?: ServedService } = {};
  const only = options.only;
  const ids = ulidSource();
  const fetch = (request: Request, bindings?: unknown): Response | Promise<Response> => {
    const service = holder.service as ServedService;
    if (only === undefined || only.matches(new URL(request.url).pathname)) return service.fetch(request, bindings);
    const requestId = ids.next();
    const envelope = toErrorEnvelope(new DomainError("SVC_ROUTE_NOT_FOUND", only.refusal), requestId);
    // Answered here, not by an app, so its access-log line is written here (same fields).
    logger.info({ method: request.method, route: null, path: new URL(request.url).pathname, status: 404, duration_ms: 0, request_id: requestId }, ACCESS_LOG_MESSAGE);
    return Response.json(envelope, { status: 404, headers: { "X-Request-Id": requestId, "Cache-Control": "no-store" } });
  };
  const listener = await listenHttp(fetch, { hostname: env.host, port: env.port }).catch((error: unknown) => {
    logger.fatal({ err: error }, "server could not listen");
    process.exit(1);
  });
  const { server } = listener;
  server.on("error", (error) => {
    logger.fatal({ err: error }, "server failed");
    process.exit(1);
  });
  const publicBaseUrl = publicBaseUrlOf(env, listener.address.port);
  // A cluster's workers answer the primary's scrapes (it serves METRICS_PORT); a single process serves its own.
  let metricsEndpoint: MetricsEndpoint | null = null;
  if (metrics !== null && env.metrics !== null) {
    if (worker === null) {
      metricsEndpoint = await listenMetrics(env.metrics, await metricsSource(metrics)).catch((error: unknown) => {
        logger.fatal({ err: error }, "metrics could not listen");
        process.exit(1);
      });
      logger.info({ host: metricsEndpoint.address.address, port: metricsEndpoint.address.port, path: "/metrics" }, "metrics listening");
    } else {
      const { shareWithPrimary } = await import("./telemetry/prometheus-metrics.ts");
      await shareWithPrimary(metrics);
    }
  }
  const logServed = accessLogTo(createAccessLogger(env.logLevel));
  const origin: OriginSettings = { trustedProxies: env.trustedProxies, countryHeader: env.countryHeader };
  const service = compose({
    env,
    logger,
    sql: db.sql,
    secrets,
    publicBaseUrl,
    origin,
    worker,
    depsOptions: {
      sql: db.sql,
      secrets,
      publicBaseUrl,
      // Several workers share their limits through PostgreSQL unless the operator chose otherwise.
      rateLimiter: worker !== null && !env.rateLimiterSet ? "postgres" : env.rateLimiter,
      previousLogKeys: env.previousLogKeys,
      mailer: mail.mailer,
      noticeAgent: env.noticeAgent,
      ...(env.oidc === null ? {} : { oidc: createOpenIdClientProvider(env.oidc) }),
      people: { settings: env.people },
      ...(sanctions === null ? {} : { sanctions: sanctions.screen }),
      ...(metrics === null ? {} : { meter: metrics }),
    },
    onRequestServed:
      metrics === null
        ? logServed
        : (entry) => {
            logServed(entry);
            metrics.requestServed(entry);
          },
    onWebhookPass: (pass) => metrics?.webhookPass(pass),
    tracing,
  });
  holder.service = service;
  const started: Stoppable[] = [];
  for (const start of service.tasks ?? []) started.push(await start());
  const background = isBackgroundWorker();
  if (background) for (const start of service.background ?? []) started.push(await start());
  // The gauges' one periodic read runs where the background work runs (one process of a cluster).
  if (background && metrics !== null && env.metrics !== null) {
    started.push(startQueueStatsTask(db.sql, metrics, { intervalMs: env.metrics.queueStatsIntervalMs, onError: (error) => logger.warn({ err: error }, "metrics: the queue statistics could not be read") }));
  }
  // The timeouts are read back from the listening server, so the log says what it really does.
  logger.info(
    { host: listener.address.address, port: listener.address.port, base_url: publicBaseUrl, ...options.describe, tracing: tracing !== undefined, ...(worker === null ? {} : { worker, background }), keep_alive_timeout_ms: server.keepAliveTimeout, headers_timeout_ms: server.headersTimeout },
    "agentq listening",
  );

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
    const closing = listener.close();
    await service.draining?.();
    await closing;
    for (const task of started) await task.stop();
    await metricsEndpoint?.close();
    // The last spans (the drain's own requests included) go out before the process exits, for
    // at most TRACE_FLUSH_TIMEOUT_MS: an unreachable collector must not hold the stop.
    if (tracing !== undefined) {
      const flushed = tracing.shutdown().then(
        () => true,
        (error: unknown) => {
          logger.warn({ err: error }, "tracing: the last spans could not be exported");
          return true;
        },
      );
      const timeout = new Promise<boolean>((resolve) => setTimeout(() => resolve(false), TRACE_FLUSH_TIMEOUT_MS).unref());
      if (!(await Promise.race([flushed, timeout]))) logger.warn({ timeout_ms: TRACE_FLUSH_TIMEOUT_MS }, "tracing: the last spans were not exported in time");
    }
    await service.close?.();
    await db.close();
    logger.info("stopped cleanly");
    process.exit(0);
  };
  process.on("SIGTERM", () => void drain("SIGTERM"));
  process.on("SIGINT", () => void drain("SIGINT"));
}

/** Runs `runService` as a process's entry point: a start-up failure prints its reason and exits 1. */
export function runServiceProcess(compose: (process: ServiceProcess) => ServedService, options: RunServiceOptions): void {
  const fail = (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  };
  try {
    const env = readEnv();
    const count = readWorkerCount(process.env, options.workers ?? 1);
    // The embedded PostgreSQL belongs to one process: without DATABASE_URL one worker serves.
    if (shouldSupervise(count) && env.databaseUrl !== null) {
      const logger = createLogger(env.logLevel);
      superviseWorkers(count, logger);
      // One scrape target per host: the primary serves METRICS_PORT, aggregating its workers (docs/decisions.md).
      if (env.metrics !== null) void serveClusterMetrics(env.metrics, logger).catch(fail);
      return;
    }
  } catch (error) {
    fail(error);
    return;
  }
  runService(compose, options).catch(fail);
}

/** The primary's metrics listener: every worker's registry, aggregated over the cluster's IPC. */
async function serveClusterMetrics(settings: NonNullable<ServerEnv["metrics"]>, logger: Logger): Promise<void> {
  const endpoint = await listenMetrics(settings, await metricsSource("cluster"));
  logger.info({ host: endpoint.address.address, port: endpoint.address.port, path: "/metrics", aggregated: "cluster" }, "metrics listening");
}

/**
 * Makes an operator's plan change (`pnpm admin workspace plan`, another process) take effect in
 * this process at once: the change's NOTIFY drops this process's cached limits of that workspace.
 * Shares the pool's one LISTEN connection. Without it (listen failed) the cache's 30-second bound
 * still holds. Resolves with the stopper.
 */
export async function listenForPlanChanges(sql: postgres.Sql, deps: CoreDeps, logger: Pick<Logger, "warn">): Promise<Stoppable> {
  try {
    const meta = await sql.listen(PLAN_CHANGED_CHANNEL, (workspaceId) => forgetWorkspaceLimits(deps, workspaceId));
    return { stop: () => meta.unlisten().catch(() => undefined) };
  } catch (error) {
    logger.warn({ err: error }, "could not listen for plan changes; they reach this process within 30 s");
    return { stop: async () => undefined };
  }
}
