import { DomainError, OPERATIONAL_SCOPES, OPERATIONS, createAuthenticator, credentialCaller, isDomainError, requirePublicBaseUrl, validTraceparent } from "@agentq/core";
import type { Authenticator, CoreDeps, Operation, Principal, RateLimitStatus } from "@agentq/core";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { Hono } from "hono";
import type { Context } from "hono";
import { cors } from "hono/cors";
import { useEdgeMiddleware, errorEnvelopeResponse, errorHandler, nodeBodyOf, publicOriginOf, refuseForeignOrigin, type ServedRequest, type EdgeTracing, type TraceContext } from "@agentq/http";
import { callTool, type ToolCallContext, type ToolCaller } from "./call-tool.ts";
import { MCP_PATH, METADATA_PATH_APPENDED, METADATA_PATH_INSERTED, mcpBearerChallenge, normalizeBaseUrl, protectedResourceMetadata } from "./protected-resource.ts";
import { readMcpBody } from "./read-mcp-body.ts";
import { toolBindings } from "./tool-binding.ts";
import { plainToolCall, toolCallResponseBody } from "./tool-call-fast-path.ts";
import { TOOLSETS_HEADER, TOOLSETS_QUERY_PARAMETER, requestedToolsets, toolsShownTo } from "./tool-listing.ts";
import { createToolServer } from "./tool-server.ts";
import { addInboxResource } from "./inbox-resource.ts";
import { McpSessions, type McpSession } from "./mcp-sessions.ts";

/** Options of the MCP app. */
export interface McpAppOptions {
  /**
   * The public base URL of the service (scheme, host, port), e.g. `https://agentq.example`;
   * `/mcp` is appended. Default: `deps.publicBaseUrl` (which must then be set).
   */
  publicBaseUrl?: string;
  /** Authenticates bearer credentials (default: `createAuthenticator(deps)`); pass the REST app's to share one credential cache. */
  authenticator?: Pick<Authenticator, "authenticate">;
  /** The operations to expose as tools (default: the whole catalogue). */
  operations?: readonly Operation[];
  /** Scopes named in the 401 challenge and the metadata (default: the operational scopes). */
  scopes?: readonly string[];
  /** Fresh Idempotency-Keys for tool calls of operations that require one and carry none (default: random UUIDs). */
  newIdempotencyKey?: () => string;
  /** Told about server faults (errors that are not DomainErrors), for logging; their messages never reach the client. */
  onUnexpectedError?: (error: unknown, requestId: string) => void;
  /** Told about every request answered, once its response is ready, for an access log (default: none). Never carries bodies or tokens. */
  onRequestServed?: (entry: ServedRequest) => void;
  /** OpenTelemetry at the edge (an HTTP span per request, the messaging spans); default none: no span is started. */
  tracing?: EdgeTracing;
  /**
   * This process's MCP sessions (default: a new `McpSessions(deps)`). The composition root
   * passes its own so that it can close them when the server drains (their GET streams would
   * otherwise hold the drain open).
   */
  sessions?: McpSessions;
}

type Env = { Variables: { requestId: string; principal?: Principal; traceContext?: TraceContext } };

/**
 * The MCP server of agentq as a Hono app: Streamable HTTP at `/mcp`, with one tool per
 * credential-authenticated catalogue operation, the `agentq://inbox` resource, and the RFC 9728
 * protected-resource metadata at `/.well-known/oauth-protected-resource/mcp` and
 * `/mcp/.well-known/oauth-protected-resource`.
 *
 * Requests (POST) are answered statelessly, with JSON responses rather than SSE streams: a plain
 * `tools/call` directly, any other message by an MCP server and transport built for the request.
 * An `initialize` also opens a session (`McpSessions`; its id in the `Mcp-Session-Id` response
 * header): a request carrying that id must come from the credential that opened it (else 404
 * SVC_RESOURCE_NOT_FOUND, as for an ended session); GET opens the session's stream (Server-Sent
 * Events), on which a subscription to `agentq://inbox` is notified; DELETE ends the session. A
 * request without a session id stays stateless, as fast as before.
 *
 * `tools/list` shows the caller the tools of its toolsets that it may call (tool-listing.ts):
 * `?toolsets=` on the URL and the `X-MCP-Toolsets` header narrow them; a name that is not a
 * toolset is 400 SVC_MALFORMED_REQUEST.
 *
 * Authentication: the bearer credential of REST, in the Authorization header. A missing or
 * invalid credential gets HTTP 401 with a `WWW-Authenticate` challenge naming the metadata (so
 * MCP clients can start the OAuth flow) and the JSON error envelope. Other refusals of the
 * caller (SVC_FROZEN, SVC_WORKSPACE_CLOSED) are reported in every tool result, like REST reports
 * them on every route. Every response carries `X-Request-Id`.
 *
 * Origin: a request to `/mcp` whose Origin header is present and not the service's own origin
 * (PUBLIC_BASE_URL's: scheme, host and port) is refused first, credential or not: 403
 * SVC_CSRF_REJECTED in the error envelope (DNS rebinding, DESIGN §2c).
 */
export function createMcpApp(deps: CoreDeps, options: McpAppOptions = {}): Hono<Env> {
  const base = normalizeBaseUrl(options.publicBaseUrl ?? requirePublicBaseUrl(deps));
  const scopes = options.scopes ?? OPERATIONAL_SCOPES;
  const bindings = toolBindings(options.operations ?? OPERATIONS);
  const byName = new Map(bindings.map((b) => [b.tool.name, b]));
  const metadata = protectedResourceMetadata(base, scopes);
  const authenticator = options.authenticator ?? createAuthenticator(deps);
  const newIdempotencyKey = options.newIdempotencyKey ?? (() => crypto.randomUUID());
  const sessions = options.sessions ?? new McpSessions(deps);

  const app = new Hono<Env>();
  useEdgeMiddleware(app, { ids: deps.ids, tracing: options.tracing, onRequestServed: options.onRequestServed });
  app.onError(errorHandler({ onFault: (error, c) => options.onUnexpectedError?.(error, c.get("requestId")) }));

  // Metadata is public and read by browser-based MCP clients too.
  const serveMetadata = (c: Context<Env>): Response => c.json(metadata, 200, { "Cache-Control": "public, max-age=3600" });
  app.use(METADATA_PATH_INSERTED, cors({ origin: "*", allowMethods: ["GET"] }));
  app.use(METADATA_PATH_APPENDED, cors({ origin: "*", allowMethods: ["GET"] }));
  app.get(METADATA_PATH_INSERTED, serveMetadata);
  app.get(METADATA_PATH_APPENDED, serveMetadata);

  // DNS rebinding (DESIGN §2c, the MCP transport's security warning): a page of another site
  // whose name resolves to this server must not reach /mcp, so a request whose Origin header is
  // present and not the service's own origin is refused before anything else, a preflight
  // included (no CORS: only the service's own pages, which need none, may call from a browser).
  // Programs send no Origin. The Host header is not checked: behind a proxy it names whatever
  // the proxy forwards to, and a browser always sends Origin on a POST and on any request a
  // script sends elsewhere; a GET or DELETE does nothing without the Authorization and
  // Mcp-Session-Id headers, which only a script can set.
  const ownOrigin = publicOriginOf(base);
  app.use(MCP_PATH, async (c: Context<Env>, next) => {
    refuseForeignOrigin(c, ownOrigin);
    await next();
  });

  app.all(MCP_PATH, async (c) => {
    let caller: ToolCaller;
    try {
      // Deferred: each tool call checks the account and workspace (the executor, or the hot operations' own write).
      const principal = await authenticator.authenticate(c.req.header("Authorization") ?? null, { deferCallerCheck: true });
      c.set("principal", principal);
      caller = { kind: "principal", principal };
    } catch (error) {
      if (!isDomainError(error)) throw error;
      if (error.status === 401) return errorEnvelopeResponse(c, error, { "WWW-Authenticate": mcpBearerChallenge(base, scopes, c.req.header("Authorization")) });
      caller = { kind: "refused", error };
    }
    // Sessions (MCP Streamable HTTP session management): a request naming one must be its owner's.
    const sessionId = c.req.header("Mcp-Session-Id");
    let session: McpSession | null = null;
    // A caller refused at authentication (frozen, closed workspace) is answered statelessly: every
    // tool result and resource read carries its refusal, and no session action is open to it.
    let elsewhere = false;
    const noSession = () => errorEnvelopeResponse(c, new DomainError("SVC_RESOURCE_NOT_FOUND", "No such MCP session here: it ended, lives on another server process, or was never this credential's; send initialize for a new one.", { resource: "mcp_session" }));
    if (sessionId !== undefined && caller.kind === "principal") {
      const found = await sessions.resolve(sessionId, caller.principal);
      if (found.kind === "none") return noSession();
      if (found.kind === "here") session = found.session;
      // Issued to this credential by another process (or before a restart): answered statelessly, so
      // tool calls need no sticky routing; only what needs the session itself gets 404 below.
      elsewhere = found.kind === "elsewhere";
    }
    if (c.req.method === "GET" || c.req.method === "DELETE") {
      if (caller.kind === "refused") return errorEnvelopeResponse(c, caller.error);
      if (elsewhere) return noSession();
      if (session === null) {
        // A stateless caller: there is no stream to open and no session to end.
        return errorEnvelopeResponse(c, new DomainError("SVC_MALFORMED_REQUEST", `${c.req.method} /mcp needs the Mcp-Session-Id of a session (send initialize first).`, { header: "Mcp-Session-Id", reason: "session_required" }));
      }
      if (c.req.method === "DELETE") {
        sessions.end(session);
        return new Response(null, { status: 200, headers: { "Cache-Control": "no-store" } });
      }
      if (!(c.req.header("Accept") ?? "").includes("text/event-stream")) {
        return c.json({ jsonrpc: "2.0", error: { code: -32000, message: "Not Acceptable: Client must accept text/event-stream" }, id: null }, 406);
      }
      return sessions.openStream(session);
    }
    if (c.req.method !== "POST") {
      return errorEnvelopeResponse(c, new DomainError("SVC_METHOD_NOT_ALLOWED", "The MCP endpoint accepts POST, GET and DELETE."), { Allow: "GET, POST, DELETE" });
    }
    // Toolsets narrow tools/list only (tool-listing.ts); a name that is not a toolset is refused on every request.
    const toolsets = requestedToolsets(c.req.queries(TOOLSETS_QUERY_PARAMETER) ?? [], c.req.header(TOOLSETS_HEADER) ?? null);
    const body = await readMcpBody(c.req.raw, nodeBodyOf(c));
    if (body.kind === "not_json") {
      return c.json({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error: Invalid JSON" }, id: null }, 400);
    }

    if (elsewhere && needsSession(body.value)) return noSession();

    let rateLimit: RateLimitStatus | undefined;
    const cx: ToolCallContext = {
      deps,
      caller,
      requestId: c.get("requestId"),
      newIdempotencyKey,
      ...(options.tracing === undefined ? {} : { tracing: options.tracing }),
      trace: { requestContext: c.get("traceContext"), headerTraceparent: validTraceparent(c.req.header("traceparent")) },
      // Read lazily: under @hono/node-server the signal builds a whole web Request; only a long-polling claim needs it.
      get signal() {
        return c.req.raw.signal;
      },
      onRateLimit: (status) => {
        rateLimit = status;
      },
      ...(options.onUnexpectedError === undefined ? {} : { onUnexpectedError: options.onUnexpectedError }),
    };
    // Results are per caller and some carry secrets (issue_credential returns a token). A new
    // Response: @hono/node-server may send a Response from its construction-time headers.
    const answer = (responseBody: ConstructorParameters<typeof Response>[0], status: number, from: ConstructorParameters<typeof Headers>[0]): Response => {
      const headers = new Headers(from);
      headers.set("Cache-Control", "no-store");
      // Like REST (DESIGN §2): the tightest bucket of the caller, when a tool call was counted.
      if (rateLimit !== undefined) {
        headers.set("X-RateLimit-Limit", String(rateLimit.limit));
        headers.set("X-RateLimit-Remaining", String(rateLimit.remaining));
        headers.set("X-RateLimit-Reset", String(rateLimit.resetSeconds));
      }
      return new Response(responseBody, { status, headers });
    };

    // The common case, a plain tools/call, is answered without building an MCP server and
    // transport for the request (docs/performance.md, lever 4); anything else goes through them.
    const plain = plainToolCall({ get: (name) => c.req.header(name) ?? null }, body.value, byName);
    if (plain !== null) {
      const result = await callTool(plain.binding, plain.args, cx);
      return answer(toolCallResponseBody(plain.id, result), 200, { "Content-Type": "application/json" });
    }

    // An initialize opens a session (its id goes back in Mcp-Session-Id) for an authenticated
    // caller; a caller refused at authentication (frozen) still initializes, statelessly.
    let opened: McpSession | null = null;
    if (isInitialize(body.value)) {
      if (sessionId !== undefined) return c.json({ jsonrpc: "2.0", error: { code: -32600, message: "Invalid Request: this session is already initialized" }, id: null }, 400);
      if (caller.kind === "principal" && sessions.accepting) opened = await sessions.open(credentialCaller(caller.principal));
    }
    const server = createToolServer(bindings, cx, () => toolsShownTo(bindings, caller, toolsets));
    addInboxResource(server, { deps, caller, requestId: cx.requestId, session, ...(cx.onRateLimit === undefined ? {} : { onRateLimit: cx.onRateLimit }), ...(options.onUnexpectedError === undefined ? {} : { onUnexpectedError: options.onUnexpectedError }) });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(c.req.raw, { parsedBody: body.value });
      const headers = new Headers(response.headers);
      if (opened !== null) {
        if (response.status === 200) headers.set("Mcp-Session-Id", opened.id);
        else sessions.end(opened);
      }
      return answer(response.body, response.status, headers);
    } catch (error) {
      if (opened !== null) sessions.end(opened);
      throw error;
    } finally {
      await server.close();
    }
  });
  return app;
}

/** True when a message of the body (one, or a batch) needs the session's own state: a subscription. */
function needsSession(body: unknown): boolean {
  const messages = Array.isArray(body) ? body : [body];
  return messages.some((m) => typeof m === "object" && m !== null && ((m as { method?: unknown }).method === "resources/subscribe" || (m as { method?: unknown }).method === "resources/unsubscribe"));
}

/** True for a single JSON-RPC `initialize` request (a batch may not carry one: the transport refuses it). */
function isInitialize(body: unknown): boolean {
  return typeof body === "object" && body !== null && !Array.isArray(body) && (body as { method?: unknown }).method === "initialize" && "id" in body;
}
