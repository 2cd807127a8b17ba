import { hashToken } from "../access/token.ts";
import type { Credential } from "../access/model.ts";
import type { CoreDeps } from "../deps.ts";
import { OAuthError } from "../errors.ts";
import { isUlid } from "../ids.ts";
import { isMcpResource, type OAuthEndpoints } from "./endpoints.ts";
import { forgetCredentials, issueRefreshToken, mintAccessToken, revokeGrantInTx, type IssuedTokens } from "./grants.ts";
import type { AccessActor } from "../access/access-audit.ts";
import { auditEntry, personDetails } from "../audit/audit-entry.ts";
import { ACCESS_TOKEN_LIFETIME_MS, AUTHORIZATION_CODE_PREFIX, REFRESH_TOKEN_LIFETIME_MS, REFRESH_TOKEN_PREFIX, type OAuthClient, type OAuthGrant } from "./model.ts";
import { narrowedScopes } from "./scopes.ts";
import { isValidCodeVerifier, isWellFormedOAuthSecret, verifierMatches } from "./secrets.ts";

/** The parameters of one token request (form fields, each at most once) and the client_id of HTTP Basic, if any. */
export interface TokenRequest {
  params: Readonly<Record<string, string>>;
  basicClientId: string | null;
  /** The request id, for the audit rows. */
  requestId: string | null;
}

/** The outcome of a transaction that may have to commit a revocation before refusing. */
type Outcome = { ok: true; tokens: IssuedTokens } | { ok: false; error: OAuthError; revoked: Credential[] };

const refused = (error: OAuthError, revoked: Credential[] = []): Outcome => ({ ok: false, error, revoked });
const invalidGrant = (why: string) => new OAuthError("invalid_grant", why);

/**
 * The token endpoint (RFC 6749 §4.1.3, §6; DESIGN §2b): `authorization_code` with PKCE S256, or
 * `refresh_token` with rotation. Every token is for the MCP endpoint (`resource`, when sent, must
 * name it). The client is public: identified by client_id (in the body, or the user part of HTTP
 * Basic), never authenticated by a secret.
 * @throws OAuthError invalid_request, invalid_client (unknown client_id: register again),
 *   invalid_grant, invalid_scope, invalid_target, unauthorized_client, unsupported_grant_type.
 */
export async function handleTokenRequest(deps: CoreDeps, endpoints: Pick<OAuthEndpoints, "mcpResource">, request: TokenRequest): Promise<IssuedTokens> {
  const p = request.params;
  const grantType = p.grant_type;
  if (grantType === undefined) throw new OAuthError("invalid_request", "grant_type is required.");
  if (grantType !== "authorization_code" && grantType !== "refresh_token") throw new OAuthError("unsupported_grant_type", "grant_type must be authorization_code or refresh_token.");
  if (p.client_id !== undefined && request.basicClientId !== null && p.client_id !== request.basicClientId) throw new OAuthError("invalid_request", "client_id differs between the body and the Authorization header.");
  const clientId = p.client_id ?? request.basicClientId;
  if (clientId === null || clientId === "") throw new OAuthError("invalid_request", "client_id is required.");
  const client = isUlid(clientId) ? await deps.stores.oauth.findClient({ clientId }) : null;
  if (client === null) throw new OAuthError("invalid_client", "Unknown client_id: register again at the registration endpoint.");
  if (p.resource !== undefined && !isMcpResource(endpoints, p.resource)) throw new OAuthError("invalid_target", `resource must be ${endpoints.mcpResource}.`);
  const actor: AccessActor = { principal: null, requestId: request.requestId };
  if (grantType === "authorization_code") return exchangeAuthorizationCode(deps, client, p, actor);
  if (!(client.metadata.grant_types as string[] | undefined)?.includes("refresh_token")) throw new OAuthError("unauthorized_client", "This client did not register the refresh_token grant type.");
  return refreshAccessToken(deps, client, p, actor);
}

/**
 * Exchanges an authorization code (consumed once, whatever follows): checks the client, expiry,
 * redirect_uri and PKCE verifier, then creates the grant with its first access token and refresh
 * token. A code presented again revokes everything its first exchange issued.
 */
async function exchangeAuthorizationCode(deps: CoreDeps, client: OAuthClient, p: Readonly<Record<string, string>>, actor: AccessActor): Promise<IssuedTokens> {
  const { code, redirect_uri: redirectUri, code_verifier: verifier } = p;
  if (code === undefined || redirectUri === undefined || verifier === undefined) throw new OAuthError("invalid_request", "code, redirect_uri and code_verifier are required.");
  if (!isValidCodeVerifier(verifier)) throw new OAuthError("invalid_request", "code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_' or '~'.");
  if (!isWellFormedOAuthSecret(AUTHORIZATION_CODE_PREFIX, code)) throw invalidGrant("The authorization code is unknown.");
  const codeHash = hashToken(deps.secrets.pepper, code);

  const outcome = await deps.tx.run(async (stores): Promise<Outcome> => {
    const now = deps.clock.now();
    const consumed = await stores.oauth.consumeCode({ codeHash, now });
    if (consumed.kind === "not_found") return refused(invalidGrant("The authorization code is unknown."));
    if (consumed.kind === "already_consumed") {
      const c = consumed.code;
      const revoked = c.grantId === null ? null : await revokeGrantInTx(deps, stores, { workspaceId: c.workspaceId, grantId: c.grantId, cause: "authorization_code_replayed", actor });
      return refused(invalidGrant("The authorization code was already used; what it issued is revoked."), revoked?.credentials ?? []);
    }
    const c = consumed.code;
    if (c.clientId !== client.id) return refused(invalidGrant("The authorization code was issued to another client."));
    if (c.expiresAt.getTime() <= now.getTime()) return refused(invalidGrant("The authorization code expired."));
    if (c.redirectUri !== redirectUri) return refused(invalidGrant("redirect_uri differs from the authorization request's."));
    if (!verifierMatches(verifier, c.codeChallenge)) return refused(invalidGrant("The code_verifier does not match the code_challenge."));
    const account = await stores.accounts.findById({ workspaceId: c.workspaceId, accountId: c.aiAccountId });
    if (account === null || account.state === "revoked") return refused(invalidGrant("The AI account of this authorization is revoked."));

    const withRefresh = (client.metadata.grant_types as string[] | undefined)?.includes("refresh_token") === true;
    const grant: OAuthGrant = {
      id: deps.ids.next(),
      workspaceId: c.workspaceId,
      clientId: client.id,
      clientName: client.name,
      redirectUri: c.redirectUri,
      aiAccountId: c.aiAccountId,
      personId: c.personId,
      scopes: [...c.scopes],
      createdAt: now,
      lastUsedAt: now,
      refreshExpiresAt: new Date(now.getTime() + (withRefresh ? REFRESH_TOKEN_LIFETIME_MS : ACCESS_TOKEN_LIFETIME_MS)),
      revokedAt: null,
      revokedReason: null,
    };
    await stores.oauth.insertGrant({ grant });
    const refresh = withRefresh ? await issueRefreshToken(deps, stores, grant, 1, now) : null;
    await stores.oauth.setCodeGrant({ workspaceId: c.workspaceId, codeId: c.id, grantId: grant.id });
    await stores.audit.append({
      entry: auditEntry(deps, null, {
        workspaceId: grant.workspaceId,
        occurredAt: now,
        activity: "oauth_grant.created",
        subjectType: "oauth_grant",
        subjectId: grant.id,
        details: { client_id: client.id, client_name: client.name, redirect_uri: grant.redirectUri, ai_account_id: grant.aiAccountId, scopes: grant.scopes, ...personDetails(grant.personId) },
        requestId: actor.requestId,
      }),
    });
    const access = await mintAccessToken(deps, stores, grant, grant.scopes, now, actor);
    await stores.oauth.touchClient({ clientId: client.id, now });
    return { ok: true, tokens: tokensOf(access.token, refresh?.token ?? null, grant.scopes) };
  });
  return settle(deps, outcome);
}

/**
 * Rotates a refresh token (spent once, by one guarded write) into a new access token and the
 * next refresh token. Replaying the most recently spent token revokes the whole grant (the
 * spec's rule, cause recorded on the grant and in the audit log); an older one was forgotten at
 * the rotation before and is refused as unknown, with no revocation.
 */
async function refreshAccessToken(deps: CoreDeps, client: OAuthClient, p: Readonly<Record<string, string>>, actor: AccessActor): Promise<IssuedTokens> {
  const presented = p.refresh_token;
  if (presented === undefined) throw new OAuthError("invalid_request", "refresh_token is required.");
  if (!isWellFormedOAuthSecret(REFRESH_TOKEN_PREFIX, presented)) throw invalidGrant("The refresh token is unknown.");
  const tokenHash = hashToken(deps.secrets.pepper, presented);

  const outcome = await deps.tx.run(async (stores): Promise<Outcome> => {
    const now = deps.clock.now();
    const spent = await stores.oauth.spendRefreshToken({ tokenHash, clientId: client.id, now });
    if (spent.kind === "refused") {
      const t = spent.token;
      if (t !== null && t.clientId === client.id && t.spentAt !== null && t.revokedAt === null) {
        const revoked = await revokeGrantInTx(deps, stores, { workspaceId: t.workspaceId, grantId: t.grantId, cause: "refresh_token_replayed", actor });
        return refused(invalidGrant("This refresh token was already used: the grant is revoked. Authorize again."), revoked?.credentials ?? []);
      }
      return refused(invalidGrant("The refresh token is unknown, expired or revoked."));
    }
    const t = spent.token;
    const grant = await stores.oauth.findGrant({ workspaceId: t.workspaceId, grantId: t.grantId });
    if (grant === null || grant.revokedAt !== null) return refused(invalidGrant("The grant is revoked."));
    const account = await stores.accounts.findById({ workspaceId: grant.workspaceId, accountId: grant.aiAccountId });
    if (account === null || account.state === "revoked") {
      const revoked = await revokeGrantInTx(deps, stores, { workspaceId: grant.workspaceId, grantId: grant.id, cause: "ai_account_revoked", actor });
      return refused(invalidGrant("The AI account of this grant is revoked."), revoked?.credentials ?? []);
    }
    const scopes = narrowedScopes(grant.scopes, p.scope ?? null);
    // Thrown, not returned: the rollback leaves the refresh token unspent.
    if (scopes === null) throw new OAuthError("invalid_scope", `scope may only narrow the grant's scopes (${grant.scopes.join(" ")}).`);
    const next = await issueRefreshToken(deps, stores, grant, t.generation + 1, now);
    await stores.oauth.recordGrantUse({ workspaceId: grant.workspaceId, grantId: grant.id, now, refreshExpiresAt: next.record.expiresAt });
    const access = await mintAccessToken(deps, stores, grant, scopes, now, actor);
    await stores.oauth.touchClient({ clientId: client.id, now });
    return { ok: true, tokens: tokensOf(access.token, next.token, scopes) };
  });
  return settle(deps, outcome);
}

function tokensOf(accessToken: string, refreshToken: string | null, scopes: readonly string[]): IssuedTokens {
  return {
    access_token: accessToken,
    token_type: "Bearer",
    expires_in: ACCESS_TOKEN_LIFETIME_MS / 1000,
    ...(refreshToken === null ? {} : { refresh_token: refreshToken }),
    scope: scopes.join(" "),
  };
}

/** After commit: forgets revoked credentials in this process's cache, then answers or refuses. */
function settle(deps: CoreDeps, outcome: Outcome): IssuedTokens {
  if (outcome.ok) return outcome.tokens;
  forgetCredentials(deps, outcome.revoked);
  throw outcome.error;
}
