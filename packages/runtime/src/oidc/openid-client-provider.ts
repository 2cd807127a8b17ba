import type { OidcProvider } from "@agentq/core";
import * as oidc from "openid-client";

/** How long one request to the identity provider may take. */
export const OIDC_REQUEST_TIMEOUT_S = 10;

/** The configuration of the one identity provider (SVC_OIDC_*). */
export interface OidcSettings {
  /** SVC_OIDC_ISSUER: the issuer identifier, e.g. `https://accounts.example.com`. */
  issuer: string;
  clientId: string;
  /** SVC_OIDC_CLIENT_SECRET; null for a public client (PKCE only). */
  clientSecret: string | null;
  /** SVC_OIDC_LABEL: the provider's name for people (default the issuer's host). */
  label: string;
}

/** True for a loopback host, where plain http is allowed (a provider on the same machine, tests). */
function isLoopback(host: string): boolean {
  return host === "localhost" || host === "[::1]" || /^127(?:\.\d{1,3}){3}$/.test(host);
}

/**
 * Reaching the provider failed (network, timeout, 5xx): the request should answer 503, and the
 * cached discovery is dropped so the next attempt fetches it again.
 */
function isUnreachable(error: unknown): boolean {
  if (error instanceof oidc.ResponseBodyError) return error.status >= 500;
  if (error instanceof oidc.ClientError) {
    const cause = (error as { cause?: unknown }).cause;
    return error.code === "OAUTH_RESPONSE_IS_NOT_CONFORM" && cause instanceof Response ? cause.status >= 500 : isNetworkError(cause);
  }
  return isNetworkError(error);
}

function isNetworkError(error: unknown): boolean {
  return error instanceof TypeError || (error instanceof DOMException && (error.name === "TimeoutError" || error.name === "AbortError"));
}

/** A short, token-free reason for a refused callback (audit details). */
function refusalReason(error: unknown): string {
  if (error instanceof oidc.AuthorizationResponseError) return `provider_error:${error.error}`;
  if (error instanceof oidc.ResponseBodyError) return `token_endpoint:${error.error}`;
  if (error instanceof oidc.ClientError && error.code !== undefined) return error.code.toLowerCase();
  return "invalid_response";
}

/**
 * The OidcProvider port over `openid-client` (certified relying party): discovery of the
 * issuer's metadata (cached after the first success), the code flow with PKCE S256, state and
 * nonce, client_secret_basic when a secret is configured (else a public client), the ID token
 * verified by openid-client, and `email`, `email_verified` and `name` from the ID token or, when
 * it lacks an email, from the userinfo endpoint. Plain http is accepted only for a loopback issuer.
 */
export function createOpenIdClientProvider(settings: OidcSettings): OidcProvider {
  const issuerUrl = new URL(settings.issuer);
  const insecure = issuerUrl.protocol === "http:" && isLoopback(issuerUrl.host.replace(/:\d+$/, ""));
  if (issuerUrl.protocol !== "https:" && !insecure) throw new Error("SVC_OIDC_ISSUER must be an https URL (plain http only on a loopback address).");
  let configuration: Promise<oidc.Configuration> | null = null;
  const configured = (): Promise<oidc.Configuration> => {
    configuration ??= oidc
      .discovery(issuerUrl, settings.clientId, settings.clientSecret ?? undefined, settings.clientSecret === null ? oidc.None() : oidc.ClientSecretBasic(settings.clientSecret), {
        timeout: OIDC_REQUEST_TIMEOUT_S,
        ...(insecure ? { execute: [oidc.allowInsecureRequests] } : {}),
      })
      .catch((error: unknown) => {
        configuration = null;
        throw error;
      });
    return configuration;
  };

  return {
    label: settings.label,
    async authorizationRequest({ redirectUri }) {
      const config = await configured();
      const attempt = { state: oidc.randomState(), nonce: oidc.randomNonce(), codeVerifier: oidc.randomPKCECodeVerifier() };
      const url = oidc.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri,
        response_type: "code",
        scope: "openid email profile",
        state: attempt.state,
        nonce: attempt.nonce,
        code_challenge: await oidc.calculatePKCECodeChallenge(attempt.codeVerifier),
        code_challenge_method: "S256",
      });
      return { url: url.href, attempt };
    },
    async completeAuthorization({ callbackUrl, redirectUri, attempt }) {
      const config = await configured();
      try {
        const tokens = await oidc.authorizationCodeGrant(
          config,
          new URL(callbackUrl),
          { pkceCodeVerifier: attempt.codeVerifier, expectedState: attempt.state, expectedNonce: attempt.nonce, idTokenExpected: true },
          { redirect_uri: redirectUri },
        );
        const claims = tokens.claims();
        if (claims === undefined) return { kind: "refused", reason: "no_id_token" };
        let email = typeof claims.email === "string" ? claims.email : null;
        let emailVerified = claims.email_verified === true;
        let name = typeof claims.name === "string" ? claims.name : null;
        if (email === null && config.serverMetadata().userinfo_endpoint !== undefined) {
          const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
          email = typeof info.email === "string" ? info.email : null;
          emailVerified = info.email_verified === true;
          name ??= typeof info.name === "string" ? info.name : null;
        }
        return { kind: "identified", identity: { issuer: claims.iss, subject: claims.sub, email, emailVerified, name } };
      } catch (error) {
        if (isUnreachable(error)) throw error;
        return { kind: "refused", reason: refusalReason(error) };
      }
    },
  };
}
