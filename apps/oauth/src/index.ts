// The OAuth 2.0 authorization server for MCP clients (DESIGN §1, §2b).
export { createOAuthApp, OAUTH_PATHS, type OAuthAppOptions } from "./create-oauth-app.ts";
export { authorizationServerMetadata, AUTHORIZATION_SERVER_METADATA_PATH } from "./metadata.ts";
