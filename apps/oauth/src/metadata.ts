import { DEFAULT_OAUTH_SCOPES, type OAuthEndpoints } from "@agentq/core";

/** The RFC 8414 path of the authorization server metadata of an issuer without a path. */
export const AUTHORIZATION_SERVER_METADATA_PATH = "/.well-known/oauth-authorization-server";

/**
 * RFC 8414 authorization server metadata (DESIGN §2b). `issuer` is PUBLIC_BASE_URL's origin,
 * byte for byte the `authorization_servers[0]` of the MCP endpoint's protected-resource metadata.
 * Client ID Metadata Documents are not advertised (not supported).
 */
export function authorizationServerMetadata(endpoints: OAuthEndpoints): Record<string, unknown> {
  return {
    issuer: endpoints.issuer,
    authorization_endpoint: endpoints.authorization,
    token_endpoint: endpoints.token,
    registration_endpoint: endpoints.registration,
    revocation_endpoint: endpoints.revocation,
    response_types_supported: ["code"],
    response_modes_supported: ["query"],
    grant_types_supported: ["authorization_code", "refresh_token"],
    code_challenge_methods_supported: ["S256"],
    token_endpoint_auth_methods_supported: ["none"],
    revocation_endpoint_auth_methods_supported: ["none"],
    scopes_supported: [...DEFAULT_OAUTH_SCOPES],
    authorization_response_iss_parameter_supported: true,
  };
}
