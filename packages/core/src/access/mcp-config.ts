/** Key of the server entry in a generated MCP client configuration. */
export const MCP_CONFIG_SERVER_NAME = "agentq";

/** A paste-ready MCP client configuration (the `mcpServers` form most MCP clients read). */
export interface McpClientConfig {
  mcpServers: Record<string, { type: "http"; url: string; headers: Record<string, string> }>;
}

/**
 * The MCP client configuration for a credential: one Streamable HTTP server at
 * `<base>/mcp` (DESIGN §2) with the bearer token in its Authorization header. Contains the
 * plaintext token, so it is built for the issue/rotate response only and never stored.
 */
export function buildMcpConfig(publicBaseUrl: string, token: string): McpClientConfig {
  const base = publicBaseUrl.replace(/\/+$/, "");
  return { mcpServers: { [MCP_CONFIG_SERVER_NAME]: { type: "http", url: `${base}/mcp`, headers: { Authorization: `Bearer ${token}` } } } };
}
