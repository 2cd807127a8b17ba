import type { Toolset } from "../toolsets.ts";

/** Key of the server entry in a generated MCP client configuration. */
export const MCP_CONFIG_SERVER_NAME = "agentq";

/** A paste-ready MCP client configuration (the `mcpServers` form most MCP clients read). */
export interface McpClientConfig {
  mcpServers: Record<string, { type: "http"; url: string; headers: Record<string, string> }>;
}

/**
 * The MCP client configuration for a credential: one Streamable HTTP server at
 * `<base>/mcp` (DESIGN §2) with the bearer token in its Authorization header, and
 * `?toolsets=a,b` when toolsets are chosen (DESIGN §2c). Contains the plaintext token, so it is
 * built for the issue/rotate response only and never stored.
 */
export function buildMcpConfig(publicBaseUrl: string, token: string, toolsets: readonly Toolset[] | null = null): McpClientConfig {
  const base = publicBaseUrl.replace(/\/+$/, "");
  // Toolset names are [a-z_]: no escaping needed, and the comma stays readable.
  const query = toolsets === null || toolsets.length === 0 ? "" : `?toolsets=${toolsets.join(",")}`;
  return { mcpServers: { [MCP_CONFIG_SERVER_NAME]: { type: "http", url: `${base}/mcp${query}`, headers: { Authorization: `Bearer ${token}` } } } };
}
