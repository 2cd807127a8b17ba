/** The addresses of the authorization server and the protected resource (DESIGN §2b). */
export interface OAuthEndpoints {
  /** PUBLIC_BASE_URL's origin, exactly: no path, no trailing slash. Also `authorization_servers[0]` of the protected-resource metadata. */
  issuer: string;
  /** The MCP endpoint: the resource (RFC 8707) every token is for. */
  mcpResource: string;
  authorization: string;
  token: string;
  registration: string;
  revocation: string;
}

/**
 * The endpoints under a public base URL (with or without a path or trailing slash). The issuer
 * is the origin; the endpoints live under the base, next to /v1 and /mcp.
 */
export function oauthEndpoints(publicBaseUrl: string): OAuthEndpoints {
  const base = publicBaseUrl.replace(/\/+$/, "");
  return {
    issuer: new URL(base).origin,
    mcpResource: `${base}/mcp`,
    authorization: `${base}/oauth/authorize`,
    token: `${base}/oauth/token`,
    registration: `${base}/oauth/register`,
    revocation: `${base}/oauth/revoke`,
  };
}

/** True when `resource` (RFC 8707) names the MCP endpoint: exactly, or with one trailing slash. */
export function isMcpResource(endpoints: Pick<OAuthEndpoints, "mcpResource">, resource: string): boolean {
  return resource === endpoints.mcpResource || resource === `${endpoints.mcpResource}/`;
}
