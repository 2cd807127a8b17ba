import { auditLogKeyDocument, createAuthenticator, OPERATIONS, ulidSource } from "@agentq/core";
import type { Authenticator, CoreDeps, IdSource, Operation } from "@agentq/core";
import { Hono } from "hono";
import { errorResponse } from "./error-response.ts";
import { stderrLogger } from "./logger.ts";
import type { RestLogger } from "./logger.ts";
import type { EdgeTracing } from "@agentq/http";
import { useEdgeMiddleware, afterAnswerWorkLoggedTo, RouteTable, routeNotFound, type AfterAnswerWork, type ServedRequest, type OriginSettings, createSessionEdge } from "@agentq/http";
import { buildOpenApiDocument } from "./openapi.ts";
import type { PlainRouteDescription } from "./openapi.ts";
import type { RestEnv } from "./rest-env.ts";
import { registerOperationRoutes } from "./routes/operation-routes.ts";
import { VERSION_INFO_SCHEMA, versionInfo } from "./version.ts";

/** Options of `createRestApp`; every one has a production default. */
export interface RestAppOptions {
  /** The operations served (default: the core's OPERATIONS catalogue). */
  operations?: readonly Operation[];
  /**
   * Turns bearer tokens into principals (default: one `createAuthenticator(deps)` per app; pass
   * the process's one to share its cache with the MCP app). When it can `forget`, credentials
   * revoked or rotated through this app leave its cache at once.
   */
  authenticator?: Pick<Authenticator, "authenticate"> & Partial<Pick<Authenticator, "forget">>;
  /** Source of request ids (default: monotonic ULIDs). */
  requestIds?: IdSource;
  /** Where server faults are logged (default: JSON lines on stderr). */
  logger?: RestLogger;
  /**
   * Told about every request answered, once its response is ready, for an access log (default:
   * none). The entry never carries bodies, tokens, headers or the query string.
   */
  onRequestServed?: (entry: ServedRequest) => void;
  /** OpenTelemetry at the edge (an HTTP span per request, the messaging spans); default none: no span is started. */
  tracing?: EdgeTracing;
  /** The source commit shown by GET /v1/version. */
  commit?: string;
  /**
   * Where requests come from, for people's sign-up and sign-in and the per-address limits of the
   * anonymous routes (trusted proxies, the country header); default: no proxy trusted, no
   * country header.
   */
  origin?: OriginSettings;
  /**
   * Where work that follows an answer runs (a password reset's or a sign-up's lookup, token and mail); default:
   * one of this app's own, whose failures go to `logger`. The composition root passes the
   * process's one so that stopping waits for it.
   */
  afterAnswer?: AfterAnswerWork;
}

const VERSION_PATH = "/v1/version";
const OPENAPI_PATH = "/v1/openapi.json";
/** The audit log's verifier key document (DESIGN §2c Receipts): a public protocol document, outside /v1 like the other /.well-known documents. */
export const LOG_KEY_PATH = "/.well-known/agentq-log-key";

/** The REST routes that are not catalogue operations (version, OpenAPI, the log key: documents about the service), as OpenAPI describes them. */
export const PLAIN_ROUTES: readonly PlainRouteDescription[] = [
  { method: "GET", path: VERSION_PATH, operationId: "get_version", summary: "Build and version information.", response: VERSION_INFO_SCHEMA },
  { method: "GET", path: OPENAPI_PATH, operationId: "get_openapi", summary: "This OpenAPI document.", response: { type: "object" } },
  {
    method: "GET",
    path: LOG_KEY_PATH,
    operationId: "get_audit_log_key",
    summary: "The audit log's verifier keys (public, text/plain): one note verifier key `<name>+<key hash>+<base64 key>` per line, the current key first, then earlier keys still listed for verification (docs/receipts.md).",
    response: { type: "string" },
    responseMediaType: "text/plain",
    errors: [503],
  },
];

/**
 * Creates the REST API: a Hono app serving every catalogue operation under /v1, plus
 * GET /v1/version and GET /v1/openapi.json (public, plain routes: they describe the app rather
 * than act on the domain, so they are not operations and have no MCP tool), and the audit
 * log's key document. People's routes (sign-in, MFA, OIDC, the people, closing) are catalogue
 * operations for the REST app and the dashboard, not MCP tools (DESIGN §2b). Operation routes
 * accept a bearer credential or a person's session cookie (`authenticateCaller`).
 *
 * Conventions on every response: X-Request-Id (a fresh ULID); failures in the error envelope
 * `{ error: { code, message, details? }, request_id }` with Cache-Control: no-store; unknown
 * paths 404 SVC_ROUTE_NOT_FOUND, known paths with another method 405 SVC_METHOD_NOT_ALLOWED
 * with Allow; server faults 503 SVC_SERVICE_UNAVAILABLE, logged, never leaked.
 */
export function createRestApp(deps: CoreDeps, options: RestAppOptions = {}): Hono<RestEnv> {
  const operations = options.operations ?? OPERATIONS;
  const logger = options.logger ?? stderrLogger();
  const authenticator = options.authenticator ?? createAuthenticator(deps);
  const coreDeps = withCredentialCache(deps, authenticator);
  const routes = new RouteTable();
  const sessions = createSessionEdge(deps, options.origin);
  const app = new Hono<RestEnv>();

  useEdgeMiddleware(app, { ids: options.requestIds ?? ulidSource(), tracing: options.tracing, onRequestServed: options.onRequestServed });

  const version = versionInfo(options.commit);
  routes.add("GET", VERSION_PATH);
  app.get(VERSION_PATH, (c) => c.json(version));

  // Built once, lazily: the catalogue is complete by the time the first request arrives.
  let openApiText: string | undefined;
  routes.add("GET", OPENAPI_PATH);
  app.get(OPENAPI_PATH, (c) => {
    openApiText ??= JSON.stringify(buildOpenApiDocument(operations, PLAIN_ROUTES, { title: "agentq REST API", version: version.version }));
    return c.body(openApiText, 200, { "Content-Type": "application/json; charset=utf-8" });
  });

  // Public and the same for every caller: caches may keep it for a few minutes (a rotation lists the old key on).
  let logKeys: string | undefined;
  routes.add("GET", LOG_KEY_PATH);
  app.get(LOG_KEY_PATH, (c) => {
    logKeys ??= auditLogKeyDocument(deps);
    return c.body(logKeys, 200, { "Content-Type": "text/plain; charset=utf-8", "Cache-Control": "public, max-age=300" });
  });

  const afterAnswer = options.afterAnswer ?? afterAnswerWorkLoggedTo(logger);
  registerOperationRoutes(app, operations, routes, { core: coreDeps, authenticator, logger, sessions, afterAnswer, ...(options.tracing === undefined ? {} : { tracing: options.tracing }) });

  app.notFound(routeNotFound(routes));
  app.onError((err, c) => errorResponse(c, err, logger));
  return app;
}

// Revokes and rotates through this app must reach this app's credential cache at once, as well
// as any cache the composition root already put in the deps.
function withCredentialCache(deps: CoreDeps, authenticator: Partial<Pick<Authenticator, "forget">>): CoreDeps {
  const own = authenticator.forget?.bind(authenticator);
  const given = deps.credentialCache;
  if (own === undefined || given === authenticator) return deps;
  return {
    ...deps,
    credentialCache: {
      forget(credentialId) {
        own(credentialId);
        given?.forget(credentialId);
      },
    },
  };
}
