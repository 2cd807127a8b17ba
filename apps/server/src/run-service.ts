import { DomainError, toErrorEnvelope } from "@agentq/core";
import { listenHttp } from "@agentq/http";
import { ACCESS_LOG_MESSAGE, composeService, listenForPlanChanges, type ComposedService } from "./compose.ts";
import { openDatabase, publicBaseUrlOf, readEnv, createLogger, createMailer, createOpenIdClientProvider, loadSanctionsScreen, loadSecrets } from "@agentq/runtime";

const DRAIN_TIMEOUT_MS = 25_000;

/** postgres.js connection-loss codes: the database went away under a query, which the pool survives. */
const CONNECTION_LOSS = new Set(["CONNECTION_CLOSED", "CONNECTION_DESTROYED", "CONNECTION_ENDED", "ECONNRESET", "ECONNREFUSED", "EPIPE", "57P01", "57P02", "57P03"]);

/** True for an error that means "the database connection was lost", not a bug. */
export function isConnectionLoss(reason: unknown): boolean {
  const code = typeof reason === "object" && reason !== null ? (reason as { code?: unknown }).code : undefined;
  return typeof code === "string" && CONNECTION_LOSS.has(code);
}

/** Which interfaces a process serves: everything (`pnpm start`), or only REST or only MCP. */
export type ServedInterfaces = "all" | "rest" | "mcp";

const SERVES: Readonly<Record<Exclude<ServedInterfaces, "all">, { matches(path: string): boolean; refusal: string }>> = {
  rest: { matches: (path) => path === "/v1" || path.startsWith("/v1/"), refusal: "This process serves only the REST API under /v1." },
  mcp: { matches: (path) => path === "/mcp" || path.startsWith("/mcp/") || path.startsWith("/.well-known/oauth-protected-resource"), refusal: "This process serves only the MCP endpoint at /mcp." },
};

/**
 * The one way a server process runs, whatever it serves: reads the environment, opens the
 * database (DATABASE_URL or the embedded PostgreSQL) and applies migrations, composes the
 * service, optionally runs the background work, listens on HOST:PORT and logs
 * `"agentq listening"` with the port, and on SIGTERM/SIGINT stops accepting connections, lets
 * in-flight requests and long polls finish, stops the background work and exits 0.
 */
export async function runService(options: { serves: ServedInterfaces; background: boolean }): Promise<void> {
  const env = readEnv();
  const logger = createLogger(env.logLevel);
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
  const holder: { service?: ComposedService } = {};
  const only = options.serves === "all" ? null : SERVES[options.serves];
  const fetch = (request: Request, bindings?: unknown): Response | Promise<Response> => {
    const service = holder.service as ComposedService;
    if (only === null || only.matches(new URL(request.url).pathname)) return service.fetch(request, bindings);
    const requestId = service.deps.ids.next();
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
  const service = composeService({
    sql: db.sql,
    secrets,
    publicBaseUrl,
    logger,
    rateLimiter: env.rateLimiter,
    mailer: mail.mailer,
    noticeAgent: env.noticeAgent,
    ...(env.oidc === null ? {} : { oidc: createOpenIdClientProvider(env.oidc) }),
    people: { settings: env.people, origin: { trustedProxies: env.trustedProxies, countryHeader: env.countryHeader } },
    ...(sanctions === null ? {} : { sanctions: sanctions.screen }),
    ...(env.commit === null ? {} : { commit: env.commit }),
  });
  holder.service = service;
  const background = options.background ? service.startBackground() : { stop: async () => undefined };
  const planChanges = await listenForPlanChanges(db.sql, service.deps, logger);
  // The timeouts are read back from the listening server, so the log says what it really does.
  logger.info(
    { host: listener.address.address, port: listener.address.port, base_url: publicBaseUrl, serves: options.serves, background: options.background, keep_alive_timeout_ms: server.keepAliveTimeout, headers_timeout_ms: server.headersTimeout },
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
    await listener.close();
    await background.stop();
    await planChanges.stop();
    await service.close();
    await db.close();
    logger.info("stopped cleanly");
    process.exit(0);
  };
  process.on("SIGTERM", () => void drain("SIGTERM"));
  process.on("SIGINT", () => void drain("SIGINT"));
}

/** Runs `runService` as a process's entry point: a start-up failure prints its reason and exits 1. */
export function runServiceProcess(options: { serves: ServedInterfaces; background: boolean }): void {
  runService(options).catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
