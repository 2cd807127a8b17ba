export { createMcpApp, type McpAppOptions } from "./create-mcp-app.ts";
export { toolBindings, toolBindingFor, IDEMPOTENCY_KEY_ARGUMENT, type ToolBinding, type OperationCall, type JsonSchemaObject } from "./tool-binding.ts";
export { callTool, toolSuccess, toolFailure, RETRY_AFTER_META_KEY, type ToolCaller, type ToolCallContext } from "./call-tool.ts";
export { createToolServer, MCP_SERVER_INFO } from "./tool-server.ts";
export { MCP_PATH, METADATA_PATH_INSERTED, METADATA_PATH_APPENDED, protectedResourceMetadata, mcpBearerChallenge, type ProtectedResourceMetadata } from "./protected-resource.ts";
export { restRequestOf, type RestRequest } from "./rest-request.ts";
export { McpSessions, DEFAULT_MCP_SESSION_LIMITS, INBOX_URI, type McpSession, type McpSessionLimits, type SessionLookup } from "./mcp-sessions.ts";
export { InboxWatch, INBOX_TICK_MS, INBOX_SCAN_LIMIT, type InboxWatchOptions } from "./inbox-watch.ts";
export { addInboxResource, INBOX_RESOURCE, type InboxResourceContext } from "./inbox-resource.ts";
