/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { ERROR_CATALOGUE, toErrorEnvelope, type CoreDeps } from "@agentq/core";
import { accessLog, afterAnswerWorkLoggedTo, closeAfterUnreadBody, createSessionEdge, errorEnvelopeResponse, errorHandler, refuseUnsafeQuery, reportFaultTo, requestId, RouteTable, routeNotFound, type AfterAnswerWork, type OriginSettings, type ServedRequest, traceRequests, type EdgeTracing } from "@agentq/http";
import { Hono, type Context } from "hono";
import { renderPage } from "./render-page.tsx";
import type { ShownError } from "./components/error-notice.tsx";
import type { DashboardEnv, DashboardLogger } from "./dashboard-env.ts";
import { ErrorPage } from "./pages/error-page.tsx";
import { createPageKit, viewerOf } from "./page-kit.tsx";
import { registerAccountRoutes } from "./routes/account-routes.tsx";
import { registerAuditRoutes } from "./routes/audit-routes.tsx";
import { registerAuthRoutes } from "./routes/auth-routes.tsx";
import { registerPasswordRoutes } from "./routes/password-routes.tsx";
import { registerCredentialRoutes } from "./routes/credential-routes.tsx";
import { registerClosingRoutes } from "./routes/closing-routes.tsx";
import { registerConnectionRoutes } from "./routes/connection-routes.tsx";
import { registerLearningRoutes } from "./routes/learning-routes.tsx";
import { registerNoticeRoutes } from "./routes/notice-routes.tsx";
import { registerMessageRoutes } from "./routes/message-routes.tsx";
import { registerApprovalRoutes } from "./routes/approval-routes.tsx";
import { registerOAuthConsentRoutes } from "./routes/oauth-consent-routes.tsx";
import { registerOverviewRoutes } from "./routes/overview-routes.tsx";
import { registerPeopleRoutes } from "./routes/people-routes.tsx";
import { registerPolicyRoutes } from "./routes/policy-routes.tsx";
import { registerProjectRoutes } from "./routes/project-routes.tsx";
import { registerSettingsRoutes } from "./routes/settings-routes.tsx";
import { registerWebhookRoutes } from "./routes/webhook-routes.tsx";
import { applySessionIntents } from "./run-operation.ts";
import { requireSession, sameOriginPosts } from "./session-gate.ts";
import { securityHeaders } from "./security-headers.ts";
import { loadStaticAssets, type StaticAssets } from "./static-assets.ts";


/** Options of `createDashboardApp`. */
export interface DashboardOptions {
  /** Told about every request answered (the server's access log); default none. */
  onRequestServed?: (entry: ServedRequest) => void;
  /** OpenTelemetry at the edge: an HTTP span per request; default none. */
  tracing?: EdgeTracing;
  /** Where server faults are logged; default stderr. */
  logger?: DashboardLogger;
  /** Where requests come from (trusted proxies, country header): the same settings as REST's. */
  origin?: OriginSettings;
  /**
   * Where the work after a sign-up's or a password reset's answer runs; default: one of this
   * app's own, whose failures go to `logger`. The composition root passes the process's one
   * (REST's too) so that stopping waits for it.
   */
  afterAnswer?: AfterAnswerWork;
}

/** The signed-in pages: every path under them needs a session. */
const SIGNED_IN_PATHS = ["/", "/messages", "/messages/*", "/approvals", "/approvals/*", "/dead-letters/*", "/accounts", "/accounts/*", "/credentials", "/credentials/*", "/webhooks", "/webhooks/*", "/policies", "/policies/*", "/audit", "/projects", "/projects/*", "/lessons", "/lessons/*", "/lesson-candidates", "/lesson-candidates/*", "/rules", "/rules/*", "/connections", "/connections/*", "/notices", "/notices/*", "/people", "/people/*", "/settings", "/settings/*"];

/**
 * The browser dashboard (DESIGN §2b "Dashboard"): server-rendered pages (Hono JSX), htmx for
 * partial updates, static files of its own origin under /assets/, and a strict
 * Content-Security-Policy on every response. Mounted by the composition root at `/` beside
 * REST (/v1) and MCP (/mcp). Handlers stay thin: parse, call the operation executor (the same as
 * REST and MCP), render.
 *
 * A path no page has answers 404 SVC_ROUTE_NOT_FOUND: as a page to a browser, as the error
 * envelope to anything that does not ask for HTML.
 */
export function createDashboardApp(deps: CoreDeps, options: DashboardOptions = {}): Hono<DashboardEnv> {
  const assets = loadStaticAssets();
  const logger = options.logger ?? stderrLogger();
  // The sign-in page offers OIDC exactly when the server has an identity provider (SVC_OIDC_*), under its label.
  const oidcLabel = deps.oidc?.label ?? null;
  const app = new Hono<DashboardEnv>();

  // A path no page has: a page to a browser, the error envelope to anything that does not ask for HTML.
  const notFound = routeNotFound(new RouteTable(), {
    notFoundMessage: "No page or route matches this path.",
    render: (c, err) => (wantsHtml(c) ? errorPage(c, assets, err) : errorEnvelopeResponse(c, err)),
  });

  if (options.tracing !== undefined) app.use("*", traceRequests(options.tracing));
  if (options.onRequestServed !== undefined) app.use("*", accessLog(options.onRequestServed));
  // A form refused before it was read to its end (413) is answered on a closing connection.
  app.use("*", closeAfterUnreadBody());
  app.use("*", requestId(deps.ids));
  app.use("*", securityHeaders());
  app.use("*", refuseUnsafeQuery());

  app.get("/assets/:file", (c) => {
    const found = assets.byPath(c.req.path);
    if (found === undefined) return notFound(c);
    // The name carries the content's hash: a changed file is a new URL, so this one never changes.
    return c.body(found.body.slice(), 200, { "Content-Type": found.contentType, "Cache-Control": "public, max-age=31536000, immutable" });
  });

  const sessions = createSessionEdge(deps, options.origin);
  const afterAnswer = options.afterAnswer ?? afterAnswerWorkLoggedTo(logger);
  const kit = createPageKit(deps, assets, { sessions, afterAnswer, logger });
  app.use("*", applySessionIntents());
  app.use("*", sameOriginPosts(sessions));
  for (const path of SIGNED_IN_PATHS) app.use(path, requireSession(deps, sessions));

  registerAuthRoutes(app, kit, { oidcLabel });
  registerPasswordRoutes(app, kit);
  registerOverviewRoutes(app, kit);
  registerMessageRoutes(app, kit);
  registerApprovalRoutes(app, kit);
  registerAccountRoutes(app, kit);
  registerCredentialRoutes(app, kit);
  registerWebhookRoutes(app, kit);
  registerPolicyRoutes(app, kit);
  registerAuditRoutes(app, kit);
  registerProjectRoutes(app, kit);
  registerLearningRoutes(app, kit);
  registerConnectionRoutes(app, kit);
  registerNoticeRoutes(app, kit);
  registerSettingsRoutes(app, kit, { oidcLabel });
  registerOAuthConsentRoutes(app, kit, sessions);
  registerClosingRoutes(app, kit);
  registerPeopleRoutes(app, kit);

  app.notFound(notFound);
  app.onError(errorHandler({ onFault: reportFaultTo(logger, "dashboard request failed with a server fault"), render: (c, err) => errorPage(c, assets, err) }));
  return app;
}

/** Any thrown value as a page naming its SVC_ code (a server fault is SVC_SERVICE_UNAVAILABLE, its message never shown). */
export function errorPage(c: Context<DashboardEnv>, assets: StaticAssets, err: unknown): Response | Promise<Response> {
  const envelope = toErrorEnvelope(err, c.get("requestId"));
  const shown: ShownError = { code: envelope.error.code, message: envelope.error.message, details: envelope.error.details };
  const status = ERROR_CATALOGUE[envelope.error.code].status as 400 | 401 | 403 | 404 | 409 | 429 | 503;
  const viewer = viewerOf(c.get("principal"));
  return renderPage(c, assets, { title: "Error", viewer }, <ErrorPage error={shown} requestId={c.get("requestId")} signedIn={viewer !== null} />, status);
}

function wantsHtml(c: Context): boolean {
  return (c.req.header("Accept") ?? "").includes("text/html");
}

function stderrLogger(): DashboardLogger {
  return {
    error(fields, message) {
      process.stderr.write(`${JSON.stringify({ level: "error", msg: message, ...fields })}\n`);
    },
  };
}
