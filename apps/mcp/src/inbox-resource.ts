import { DomainError, admitToInbox, isDomainError, readInbox, toErrorEnvelope } from "@agentq/core";
import type { CoreDeps, RateLimitStatus } from "@agentq/core";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { ErrorCode, ListResourceTemplatesRequestSchema, ListResourcesRequestSchema, McpError, ReadResourceRequestSchema, SubscribeRequestSchema, UnsubscribeRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import type { Resource } from "@modelcontextprotocol/sdk/types.js";
import type { ToolCaller } from "./call-tool.ts";
import { INBOX_URI, type McpSession } from "./mcp-sessions.ts";

export { INBOX_URI };

/** The inbox as `resources/list` shows it. */
export const INBOX_RESOURCE: Resource = {
  uri: INBOX_URI,
  name: "inbox",
  title: "Your inbox",
  description:
    "What you could claim now: counts by priority and the oldest waiting message's envelope (never a payload). " +
    "Subscribe (in a session) to be sent notifications/resources/updated when a message becomes claimable; then call get_pending.",
  mimeType: "application/json",
};

/** What the inbox handlers of one request need. */
export interface InboxResourceContext {
  deps: CoreDeps;
  caller: ToolCaller;
  requestId: string;
  /** The request's session (its `Mcp-Session-Id`), or null for a stateless request. */
  session: McpSession | null;
  onRateLimit?: (status: RateLimitStatus) => void;
  onUnexpectedError?: (error: unknown, requestId: string) => void;
}

/**
 * Adds the `agentq://inbox` resource to a request's MCP server: `resources/list` and
 * `resources/templates/list` (none), `resources/read` (the caller's `InboxView` as JSON text),
 * and, in a session, `resources/subscribe` and `resources/unsubscribe` (capability
 * `resources.subscribe`). An unknown URI is JSON-RPC -32602 with `data.uri` (SEP-2164). A refusal
 * of the caller is a JSON-RPC error whose `data` is the REST error envelope (its SVC_ code):
 * -32602 for SVC_MALFORMED_REQUEST (a subscribe outside a session: `details.reason`
 * `session_required`), -32603 for SVC_SERVICE_UNAVAILABLE (a server fault, logged, its message
 * never sent), -32600 for every other refusal (scope, tier, frozen, rate limit).
 */
export function addInboxResource(server: Server, cx: InboxResourceContext): void {
  server.registerCapabilities({ resources: { subscribe: true } });
  server.setRequestHandler(ListResourcesRequestSchema, () => ({ resources: [INBOX_RESOURCE] }));
  server.setRequestHandler(ListResourceTemplatesRequestSchema, () => ({ resourceTemplates: [] }));
  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    requireInboxUri(request.params.uri);
    const view = await refusalsAsErrors(cx, async () => readInbox(cx.deps, { principal: principalOf(cx), ...rateLimitListener(cx) }));
    return { contents: [{ uri: INBOX_URI, mimeType: "application/json", text: JSON.stringify(view) }] };
  });
  server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    requireInboxUri(request.params.uri);
    await refusalsAsErrors(cx, async () => {
      await admitToInbox(cx.deps, { principal: principalOf(cx), ...rateLimitListener(cx) }, 1);
      requireSession(cx).subscribeInbox();
    });
    return {};
  });
  server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    requireInboxUri(request.params.uri);
    await refusalsAsErrors(cx, async () => requireSession(cx).unsubscribeInbox());
    return {};
  });
}

function requireInboxUri(uri: string): void {
  // The SDK bounds nothing here; the URI is echoed back only when short.
  if (uri !== INBOX_URI) throw new McpError(ErrorCode.InvalidParams, "Resource not found", { uri: uri.length <= 256 ? uri : `${uri.slice(0, 256)}…` });
}

function principalOf(cx: InboxResourceContext) {
  if (cx.caller.kind === "refused") throw cx.caller.error;
  return cx.caller.principal;
}

function requireSession(cx: InboxResourceContext): McpSession {
  if (cx.session === null) {
    throw new DomainError("SVC_MALFORMED_REQUEST", "Subscriptions need a session: send initialize first and then every request with the Mcp-Session-Id it returned.", { reason: "session_required", header: "Mcp-Session-Id" });
  }
  return cx.session;
}

function rateLimitListener(cx: InboxResourceContext): { onRateLimit?: (status: RateLimitStatus) => void } {
  return cx.onRateLimit === undefined ? {} : { onRateLimit: cx.onRateLimit };
}

/** Runs `work`, turning a refusal into a JSON-RPC error carrying the error envelope. */
async function refusalsAsErrors<T>(cx: InboxResourceContext, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    if (error instanceof McpError) throw error;
    if (!isDomainError(error)) cx.onUnexpectedError?.(error, cx.requestId);
    const envelope = toErrorEnvelope(error, cx.requestId);
    const code = envelope.error.code === "SVC_MALFORMED_REQUEST" ? ErrorCode.InvalidParams : envelope.error.code === "SVC_SERVICE_UNAVAILABLE" ? ErrorCode.InternalError : ErrorCode.InvalidRequest;
    throw new McpError(code, envelope.error.message, envelope);
  }
}
