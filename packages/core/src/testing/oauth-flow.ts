import { randomBytes } from "@noble/hashes/utils.js";
import { toBase64Url } from "../access/token.ts";
import type { CoreDeps } from "../deps.ts";
import { issueAuthorizationCode } from "../oauth/authorization-codes.ts";
import { oauthEndpoints } from "../oauth/endpoints.ts";
import type { IssuedTokens } from "../oauth/grants.ts";
import type { OAuthClient } from "../oauth/model.ts";
import { registerClient } from "../oauth/register-client.ts";
import { s256Challenge } from "../oauth/secrets.ts";
import { handleTokenRequest } from "../oauth/token-requests.ts";

/** The public base URL the OAuth test helpers use (the MCP resource is `<base>/mcp`). */
export const TEST_PUBLIC_BASE_URL = "http://127.0.0.1:8080";
/** The redirect URI the helpers register and use. */
export const TEST_REDIRECT_URI = "http://127.0.0.1:33418/callback";

/** A fresh PKCE verifier (RFC 7636: 43 characters of base64url). */
export function newCodeVerifier(): string {
  return toBase64Url(randomBytes(32));
}

/** Registers a client as an MCP client would (loopback redirect URI, both grant types). */
export async function registerTestClient(deps: CoreDeps, overrides: Record<string, unknown> = {}): Promise<OAuthClient> {
  return (await registerClient(deps, { client_name: "Test MCP client", redirect_uris: [TEST_REDIRECT_URI], grant_types: ["authorization_code", "refresh_token"], token_endpoint_auth_method: "none", ...overrides })).client;
}

/** An approval's code, made through the core (as the consent page will), with its verifier. */
export async function approveForTest(deps: CoreDeps, p: { client: OAuthClient; workspaceId: string; aiAccountId: string; scopes?: readonly string[]; personId?: string | null; redirectUri?: string }): Promise<{ code: string; verifier: string }> {
  const verifier = newCodeVerifier();
  const { code } = await deps.tx.run((stores) =>
    issueAuthorizationCode(deps, stores, {
      clientId: p.client.id,
      workspaceId: p.workspaceId,
      personId: p.personId ?? null,
      aiAccountId: p.aiAccountId,
      scopes: p.scopes ?? ["send", "get_pending", "ack", "list_recipients"],
      redirectUri: p.redirectUri ?? TEST_REDIRECT_URI,
      codeChallenge: s256Challenge(verifier),
      resource: `${TEST_PUBLIC_BASE_URL}/mcp`,
    }),
  );
  return { code, verifier };
}

/** Calls the token endpoint's core with form parameters. */
export function tokenRequest(deps: CoreDeps, params: Record<string, string>, publicBaseUrl = TEST_PUBLIC_BASE_URL): Promise<IssuedTokens> {
  return handleTokenRequest(deps, oauthEndpoints(publicBaseUrl), { params, basicClientId: null, requestId: null });
}

/**
 * A whole connection made through the core: a registered client, an approval acting as
 * `aiAccountId`, and the code exchanged. Returns the client, the tokens and the grant's id.
 */
export async function connectForTest(deps: CoreDeps, p: { workspaceId: string; aiAccountId: string; scopes?: readonly string[]; clientName?: string }): Promise<{ client: OAuthClient; tokens: IssuedTokens; grantId: string }> {
  const client = await registerTestClient(deps, p.clientName === undefined ? {} : { client_name: p.clientName });
  const { code, verifier } = await approveForTest(deps, { client, workspaceId: p.workspaceId, aiAccountId: p.aiAccountId, ...(p.scopes === undefined ? {} : { scopes: p.scopes }) });
  const tokens = await tokenRequest(deps, { grant_type: "authorization_code", client_id: client.id, code, redirect_uri: TEST_REDIRECT_URI, code_verifier: verifier });
  const grant = await deps.stores.oauth.latestGrantForClient({ workspaceId: p.workspaceId, clientId: client.id });
  if (grant === null) throw new Error("the exchange made no grant");
  return { client, tokens, grantId: grant.id };
}
