import { assertSafeStrings, handleTokenRequest, isDomainError, isOAuthError, limitAnonymousRequest, oauthEndpoints, OAuthError, registerClient, requirePublicBaseUrl, revokeOAuthToken } from "@agentq/core";
import type { CoreDeps, Principal } from "@agentq/core";
import { useEdgeMiddleware, DEFAULT_ORIGIN_SETTINGS, errorEnvelopeResponse, errorHandler, requestOrigin, RouteTable, routeNotFound, trustedProxyMatcher, type OriginSettings, type ServedRequest, type EdgeTracing } from "@agentq/http";
import { Hono } from "hono";
import type { Context } from "hono";
import { cors } from "hono/cors";
import { AUTHORIZATION_SERVER_METADATA_PATH, authorizationServerMetadata } from "./metadata.ts";
import { basicClientId, readBodyText, readFormParams } from "./read-oauth-body.ts";

/** Options of the OAuth app. */
export interface OAuthAppOptions {
  /** The service's public base URL (default `deps.publicBaseUrl`, which must then be set); the issuer is its origin. */
  publicBaseUrl?: string;
  /** Told about server faults (not OAuth refusals), for logging; their messages never reach the client. */
  onUnexpectedError?: (error: unknown, requestId: string) => void;
  /** Told about every request answered, for the access log (never bodies, tokens or query strings). */
  onRequestServed?: (entry: ServedRequest) => void;
  /** OpenTelemetry at the edge: an HTTP span per request; default none. */
  tracing?: EdgeTracing;
  /** Trusted proxies, for the client address of the per-address registration limit (default: none trusted). */
  origin?: OriginSettings;
}

type Env = { Variables: { requestId: string; principal?: Principal } };

/** Paths of the OAuth endpoints. */
export const OAUTH_PATHS = { register: "/oauth/register", token: "/oauth/token", revoke: "/oauth/revoke", authorize: "/oauth/authorize" } as const;

const NO_STORE = { "Cache-Control": "no-store", Pragma: "no-cache" };

/** An OAuth JSON answer: `no-store` always (tokens and client ids are per caller). */
function oauthJson(c: Context<Env>, body: unknown, status: 200 | 201 | 400 | 401 | 503, extra: Record<string, string> = {}): Response {
  return c.json(body, status, { ...NO_STORE, "X-Request-Id": c.get("requestId"), ...extra });
}

/**
 * The OAuth 2.0 authorization server for MCP clients (DESIGN §2b) as a Hono app:
 * - GET /.well-known/oauth-authorization-server: RFC 8414 metadata;
 * - POST /oauth/register: RFC 7591 dynamic registration of public clients;
 * - POST /oauth/token: authorization_code (PKCE S256) and refresh_token (rotating);
 * - POST /oauth/revoke: RFC 7009.
 * CORS is open on all four (browser-based MCP clients such as the Inspector call them). Refusals
 * are `{ error, error_description }` (RFC 6749 §5.2) with `no-store`; unknown paths and methods,
 * and a registration past the client address's limit (429 SVC_RATE_LIMITED with Retry-After:
 * ANONYMOUS_LIMITS.oauth_register; RFC 7591 has no error for it), get the service's SVC_
 * envelope. Every response carries X-Request-Id.
 */
export function createOAuthApp(deps: CoreDeps, options: OAuthAppOptions = {}): Hono<Env> {
  const endpoints = oauthEndpoints(options.publicBaseUrl ?? requirePublicBaseUrl(deps));
  const metadata = authorizationServerMetadata(endpoints);
  const origin = options.origin ?? DEFAULT_ORIGIN_SETTINGS;
  const isTrustedProxy = trustedProxyMatcher(origin.trustedProxies);
  const app = new Hono<Env>();
  useEdgeMiddleware(app, { ids: deps.ids, tracing: options.tracing, onRequestServed: options.onRequestServed });
  app.onError(
    errorHandler({
      // An OAuthError is a refusal of the protocol, not a fault.
      onFault: (error, c) => {
        if (!isOAuthError(error)) options.onUnexpectedError?.(error, c.get("requestId"));
      },
      // Inside the protocol, refusals and faults are OAuth error objects (RFC 6749 §5.2); other
      // refusals (an unsafe query, a malformed string) are the service's SVC_ envelope.
      render: (c, error) => {
        if (isOAuthError(error)) {
          const basic = error.code === "invalid_client" && /^Basic /i.test(c.req.header("Authorization") ?? "");
          return oauthJson(c, { error: error.code, error_description: error.message }, error.status as 400 | 401 | 503, basic ? { "WWW-Authenticate": 'Basic realm="agentq"' } : {});
        }
        if (!isDomainError(error) || error.code === "SVC_SERVICE_UNAVAILABLE") {
          return oauthJson(c, { error: "temporarily_unavailable", error_description: "The service could not serve the request; retry with backoff." }, 503, { "Retry-After": "1" });
        }
        return errorEnvelopeResponse(c, error);
      },
    }),
  );

  const openCors = cors({ origin: "*", allowMethods: ["GET", "POST", "OPTIONS"], allowHeaders: ["Content-Type", "Authorization", "MCP-Protocol-Version"], exposeHeaders: ["X-Request-Id", "WWW-Authenticate", "Retry-After"], maxAge: 86_400 });
  for (const path of [AUTHORIZATION_SERVER_METADATA_PATH, OAUTH_PATHS.register, OAUTH_PATHS.token, OAUTH_PATHS.revoke]) app.use(path, openCors);

  app.get(AUTHORIZATION_SERVER_METADATA_PATH, (c) => c.json(metadata, 200, { "Cache-Control": "public, max-age=3600" }));

  app.post(OAUTH_PATHS.register, async (c) => {
    await limitAnonymousRequest(deps, "oauth_register", requestOrigin(c, origin, isTrustedProxy).clientAddress);
    const type = c.req.header("Content-Type")?.split(";")[0]?.trim().toLowerCase();
    if (type !== "application/json") throw new OAuthError("invalid_client_metadata", "The registration must be application/json.");
    let body: unknown;
    try {
      body = JSON.parse(await readBodyText(c.req.raw, "invalid_client_metadata"));
    } catch (e) {
      if (isOAuthError(e)) throw e;
      throw new OAuthError("invalid_client_metadata", "The registration is not valid JSON.");
    }
    // U+0000 or a lone surrogate: 400 SVC_MALFORMED_REQUEST naming the field, as everywhere (DESIGN §2c).
    assertSafeStrings(body);
    const { response } = await registerClient(deps, body);
    return oauthJson(c, response, 201);
  });

  app.post(OAUTH_PATHS.token, async (c) => {
    const params = await readFormParams(c.req.raw);
    const tokens = await handleTokenRequest(deps, endpoints, { params, basicClientId: basicClientId(c.req.header("Authorization")), requestId: c.get("requestId") });
    return oauthJson(c, tokens, 200);
  });

  app.post(OAUTH_PATHS.revoke, async (c) => {
    const params = await readFormParams(c.req.raw);
    await revokeOAuthToken(deps, { params, basicClientId: basicClientId(c.req.header("Authorization")), requestId: c.get("requestId") });
    return c.body(null, 200, NO_STORE);
  });

  const routes = new RouteTable();
  routes.add("GET", AUTHORIZATION_SERVER_METADATA_PATH);
  for (const path of [OAUTH_PATHS.register, OAUTH_PATHS.token, OAUTH_PATHS.revoke]) routes.add("POST", path);
  app.notFound(routeNotFound(routes));
  return app;
}
