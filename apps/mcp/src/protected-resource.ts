import { oauthEndpoints } from "@agentq/core";
import { bearerChallenge } from "@agentq/http";
/** Path of the MCP endpoint. */
export const MCP_PATH = "/mcp";

/** The RFC 9728 metadata path with the resource path inserted after the well-known prefix (RFC 9728 §3.1). */
export const METADATA_PATH_INSERTED = "/.well-known/oauth-protected-resource/mcp";

/** The metadata path appended to the MCP endpoint (the form the specification's 401 example names). */
export const METADATA_PATH_APPENDED = "/mcp/.well-known/oauth-protected-resource";

/** RFC 9728 OAuth 2.0 protected-resource metadata of the MCP endpoint. */
export interface ProtectedResourceMetadata {
  resource: string;
  authorization_servers: string[];
  bearer_methods_supported: string[];
  scopes_supported: string[];
  resource_name: string;
}

/** `publicBaseUrl` without trailing slashes. */
export function normalizeBaseUrl(publicBaseUrl: string): string {
  return publicBaseUrl.replace(/\/+$/, "");
}

/**
 * The protected-resource metadata: the resource is `<base>/mcp`, the authorization server is the
 * issuer, `<base>`'s origin exactly (its RFC 8414 metadata lives at the root; strict clients
 * compare the two strings byte for byte), bearer tokens go in the Authorization header only.
 */
export function protectedResourceMetadata(base: string, scopes: readonly string[]): ProtectedResourceMetadata {
  return {
    resource: `${base}${MCP_PATH}`,
    authorization_servers: [oauthEndpoints(base).issuer],
    bearer_methods_supported: ["header"],
    scopes_supported: [...scopes],
    resource_name: "agentq MCP server",
  };
}

/**
 * The `WWW-Authenticate` challenge of a 401 from the MCP endpoint (MCP authorization, RFC 9728
 * §5.1): where the metadata is and which scopes to ask for, plus `error="invalid_token"` when the
 * request presented a credential that cannot be used (RFC 6750 §3.1).
 */
export function mcpBearerChallenge(base: string, scopes: readonly string[], authorization: string | null | undefined): string {
  return bearerChallenge([`resource_metadata="${base}${METADATA_PATH_INSERTED}"`, `scope="${scopes.join(" ")}"`], authorization);
}
