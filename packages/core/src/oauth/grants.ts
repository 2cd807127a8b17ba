import { accessAuditEntry, type AccessActor } from "../access/access-audit.ts";
import { credentialIssuedAudit, mintCredential } from "../access/credentials.ts";
import type { Credential } from "../access/model.ts";
import { hashToken, tokenFromSeal } from "../access/token.ts";
import type { CoreDeps } from "../deps.ts";
import type { Stores } from "../ports.ts";
import { ACCESS_TOKEN_LIFETIME_MS, REFRESH_TOKEN_LIFETIME_MS, REFRESH_TOKEN_PREFIX, type GrantRevocationCause, type OAuthGrant, type RefreshTokenRecord } from "./model.ts";
import { newOAuthSecret } from "./secrets.ts";

/** The longest credential name: an access token is named after its client. */
const NAME_MAX = 200;

/** What one token issue under a grant produced (the token endpoint's success body, RFC 6749 §5.1). */
export interface IssuedTokens {
  access_token: string;
  token_type: "Bearer";
  expires_in: number;
  refresh_token?: string;
  scope: string;
}

/**
 * Mints an access token for a grant: an ordinary operational credential of the grant's AI
 * account with `scopes`, expiring ACCESS_TOKEN_LIFETIME_MS from now, linked to the grant, with
 * its `credential.issued` audit row (details name the grant).
 */
export async function mintAccessToken(deps: Pick<CoreDeps, "ids" | "secrets">, stores: Stores, grant: OAuthGrant, scopes: readonly string[], now: Date, actor: AccessActor): Promise<{ credential: Credential; token: string }> {
  const name = `OAuth: ${grant.clientName ?? "unnamed client"}`.slice(0, NAME_MAX);
  const { credential, seal } = await mintCredential(deps, stores, {
    workspaceId: grant.workspaceId,
    aiAccountId: grant.aiAccountId,
    tier: "operational",
    scopes: [...scopes],
    name,
    expiresAt: new Date(now.getTime() + ACCESS_TOKEN_LIFETIME_MS),
    projectId: null,
    rotatedFromId: null,
    now,
  });
  await stores.oauth.linkAccessCredential({ workspaceId: grant.workspaceId, grantId: grant.id, credentialId: credential.id });
  const issued = credentialIssuedAudit(deps, actor, credential);
  await stores.audit.append({ entry: { ...issued, details: { ...issued.details, oauth_grant_id: grant.id } } });
  return { credential, token: tokenFromSeal(deps.secrets.pepper, "operational", seal) };
}

/** Issues generation `generation` of a grant's refresh token; returns the plaintext (shown once) and its expiry. */
export async function issueRefreshToken(deps: Pick<CoreDeps, "ids" | "secrets">, stores: Stores, grant: OAuthGrant, generation: number, now: Date): Promise<{ token: string; record: RefreshTokenRecord }> {
  const token = newOAuthSecret(REFRESH_TOKEN_PREFIX);
  const record: RefreshTokenRecord = {
    id: deps.ids.next(),
    workspaceId: grant.workspaceId,
    grantId: grant.id,
    clientId: grant.clientId,
    generation,
    tokenHash: hashToken(deps.secrets.pepper, token),
    createdAt: now,
    expiresAt: new Date(now.getTime() + REFRESH_TOKEN_LIFETIME_MS),
    spentAt: null,
    revokedAt: null,
  };
  await stores.oauth.insertRefreshToken({ token: record });
  return { token, record };
}

/**
 * Revokes a grant in the caller's transaction: the grant (its cause recorded on it), its refresh
 * tokens and its access credentials, with one `oauth_grant.revoked` audit row naming the cause and
 * one `credential.revoked` row per credential. Null when the grant is missing or already revoked.
 * The caller tells the credential cache to forget the returned credentials after commit.
 */
export async function revokeGrantInTx(
  deps: Pick<CoreDeps, "clock" | "ids">,
  stores: Stores,
  p: { workspaceId: string; grantId: string; cause: GrantRevocationCause; actor: AccessActor },
): Promise<{ grant: OAuthGrant; credentials: Credential[] } | null> {
  const now = deps.clock.now();
  const result = await stores.oauth.revokeGrant({ workspaceId: p.workspaceId, grantId: p.grantId, cause: p.cause, now });
  if (result.kind !== "revoked") return null;
  const { grant, credentials } = result;
  await stores.audit.append({
    entry: accessAuditEntry(deps, p.actor, {
      workspaceId: grant.workspaceId,
      occurredAt: now,
      activity: "oauth_grant.revoked",
      subjectType: "oauth_grant",
      subjectId: grant.id,
      details: { cause: p.cause, client_id: grant.clientId, client_name: grant.clientName, ai_account_id: grant.aiAccountId, revoked_credential_ids: credentials.map((c) => c.id) },
    }),
  });
  for (const c of credentials) {
    await stores.audit.append({
      entry: accessAuditEntry(deps, p.actor, { workspaceId: c.workspaceId, occurredAt: now, activity: "credential.revoked", subjectType: "credential", subjectId: c.id, details: { ai_account_id: c.aiAccountId, reason: "oauth_grant_revoked", oauth_grant_id: grant.id } }),
    });
  }
  return { grant, credentials };
}

/** Tells this process's credential cache to forget credentials revoked by a committed transaction. */
export function forgetCredentials(deps: Pick<CoreDeps, "credentialCache">, credentials: readonly Credential[]): void {
  for (const c of credentials) deps.credentialCache?.forget(c.id);
}
