import { DomainError } from "../errors.ts";
import type { OAuthErrorCode } from "../errors.ts";
import type { CoreDeps } from "../deps.ts";
import { isUlid } from "../ids.ts";
import { isMcpResource, type OAuthEndpoints } from "./endpoints.ts";
import type { OAuthClient } from "./model.ts";
import { redirectUriAllowed } from "./redirect-uris.ts";
import { requestedScopes } from "./scopes.ts";
import { isValidCodeChallenge } from "./secrets.ts";

/** The most characters of `state` carried through (RFC 6749 leaves it open; a client's state is a nonce, not a document). */
export const MAX_STATE_LENGTH = 2000;

/** The parameters of the authorization endpoint, as read from the query (or the consent form). */
export const AUTHORIZATION_PARAMS = ["response_type", "client_id", "redirect_uri", "scope", "state", "code_challenge", "code_challenge_method", "resource"] as const;

/** An authorization request checked in full: what the consent page shows and an approval fixes. */
export interface AuthorizationRequest {
  client: OAuthClient;
  /** The redirect URI to answer at: as sent, or the one registered when the request named none. */
  redirectUri: string;
  /** The client's state, passed back untouched, or null. */
  state: string | null;
  /** The operational scopes granted (`requestedScopes`). */
  scopes: string[];
  /** The PKCE S256 challenge. */
  codeChallenge: string;
  /** The resource (RFC 8707) when sent: the MCP endpoint. */
  resource: string | null;
}

/**
 * The outcome of checking an authorization request (RFC 6749 §4.1.2.1, RFC 9700 §4.11.1, DESIGN
 * §2b): `ok`; `show`, a refusal before the redirect URI is trusted (unknown client, redirect URI
 * missing, unregistered or ambiguous, a repeated client_id or redirect_uri), shown as a page and
 * never redirected; or `redirect`, an OAuth error sent back to the trusted redirect URI.
 */
export type AuthorizationRequestCheck =
  | { kind: "ok"; request: AuthorizationRequest }
  | { kind: "show"; error: DomainError }
  | { kind: "redirect"; location: string };

/** One parameter of the request: absent, one value, or repeated (RFC 6749 §3.1: a parameter sent more than once is invalid). */
export type ParamValues = Readonly<Record<string, readonly string[]>>;

function shown(oauthError: OAuthErrorCode, message: string, field: string): { kind: "show"; error: DomainError } {
  return { kind: "show", error: new DomainError("SVC_MALFORMED_REQUEST", message, { field, oauth_error: oauthError }) };
}

/**
 * The address an authorization answer goes to: the redirect URI with `params` added to its query
 * (its own query kept, RFC 6749 §3.1.2) and `iss` (RFC 9207).
 */
export function authorizationRedirect(endpoints: Pick<OAuthEndpoints, "issuer">, redirectUri: string, params: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.set(name, value);
  url.searchParams.set("iss", endpoints.issuer);
  return url.toString();
}

/**
 * Checks an authorization request (GET /oauth/authorize, and again at the consent decision).
 * In order: client_id (known), redirect_uri (exactly registered; a loopback http one on any port,
 * RFC 8252 §7.3; omitted only when the client registered exactly one) — failures there are shown,
 * never redirected; then, answered at the redirect URI with the client's state: a repeated
 * parameter (invalid_request), response_type=code (unsupported_response_type), PKCE with S256 and
 * a well-formed challenge (invalid_request), resource naming the MCP endpoint (invalid_target).
 * Unknown and administrative scopes are left out (`requestedScopes`).
 */
export async function checkAuthorizationRequest(deps: Pick<CoreDeps, "stores">, endpoints: Pick<OAuthEndpoints, "issuer" | "mcpResource">, values: ParamValues): Promise<AuthorizationRequestCheck> {
  const clientIds = values.client_id ?? [];
  if (clientIds.length !== 1 || clientIds[0] === "") return shown("invalid_request", "client_id is required, once.", "client_id");
  const clientId = clientIds[0] as string;
  const client = isUlid(clientId) ? await deps.stores.oauth.findClient({ clientId }) : null;
  if (client === null) return shown("invalid_client", "Unknown client_id: the application must register again.", "client_id");

  const redirects = (values.redirect_uri ?? []).filter((v) => v !== "");
  if (redirects.length > 1) return shown("invalid_request", "redirect_uri is repeated.", "redirect_uri");
  let redirectUri: string;
  if (redirects.length === 1) {
    redirectUri = redirects[0] as string;
    if (!redirectUriAllowed(client.redirectUris, redirectUri)) return shown("invalid_request", "redirect_uri is not one this client registered.", "redirect_uri");
  } else {
    if (client.redirectUris.length !== 1) return shown("invalid_request", "redirect_uri is required: the client registered more than one.", "redirect_uri");
    redirectUri = client.redirectUris[0] as string;
  }

  const one = (name: string): string | null => {
    const v = values[name];
    return v === undefined || v.length === 0 || v[0] === "" ? null : (v[0] as string);
  };
  const stateValues = values.state ?? [];
  const state = stateValues.length === 1 ? one("state") : null;
  const refuse = (error: OAuthErrorCode, description: string): AuthorizationRequestCheck => ({ kind: "redirect", location: authorizationRedirect(endpoints, redirectUri, { error, error_description: description, state }) });

  const repeated = AUTHORIZATION_PARAMS.find((name) => (values[name]?.length ?? 0) > 1);
  if (repeated !== undefined) return refuse("invalid_request", `The parameter ${repeated} is repeated.`);
  if (state !== null && state.length > MAX_STATE_LENGTH) return refuse("invalid_request", `state is over ${MAX_STATE_LENGTH} characters.`);
  if (one("response_type") !== "code") return refuse("unsupported_response_type", "response_type must be code.");
  const challenge = one("code_challenge");
  if (challenge === null) return refuse("invalid_request", "PKCE is required: send code_challenge and code_challenge_method=S256.");
  if (one("code_challenge_method") !== "S256") return refuse("invalid_request", "code_challenge_method must be S256.");
  if (!isValidCodeChallenge(challenge)) return refuse("invalid_request", "code_challenge must be the 43-character base64url S256 challenge.");
  const resource = one("resource");
  if (resource !== null && !isMcpResource(endpoints, resource)) return refuse("invalid_target", `resource must be ${endpoints.mcpResource}.`);

  return { kind: "ok", request: { client, redirectUri, state, scopes: requestedScopes(one("scope")), codeChallenge: challenge, resource } };
}
