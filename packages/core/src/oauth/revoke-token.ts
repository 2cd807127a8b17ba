import { accessAuditEntry, type AccessActor } from "../access/access-audit.ts";
import { hashToken, isWellFormedToken } from "../access/token.ts";
import type { CoreDeps } from "../deps.ts";
import { OAuthError } from "../errors.ts";
import { forgetCredentials, revokeGrantInTx } from "./grants.ts";
import { REFRESH_TOKEN_PREFIX } from "./model.ts";
import { isWellFormedOAuthSecret } from "./secrets.ts";

/**
 * Token revocation (RFC 7009; DESIGN §2b): a refresh token revokes its whole grant (cause
 * `revoked_by_client`), an access token only that credential. Holding the token is the authority
 * (the clients are public); when client_id is sent and the token is another client's, nothing is
 * revoked. Unknown, spent or foreign tokens change nothing and get the same answer (always 200).
 * @throws OAuthError invalid_request (no token).
 */
export async function revokeOAuthToken(deps: CoreDeps, request: { params: Readonly<Record<string, string>>; basicClientId: string | null; requestId: string | null }): Promise<void> {
  const token = request.params.token;
  if (token === undefined || token === "") throw new OAuthError("invalid_request", "token is required.");
  const clientId = request.params.client_id ?? request.basicClientId;
  const actor: AccessActor = { principal: null, requestId: request.requestId };
  const tokenHash = hashToken(deps.secrets.pepper, token);

  if (isWellFormedOAuthSecret(REFRESH_TOKEN_PREFIX, token)) {
    const record = await deps.stores.oauth.findRefreshToken({ tokenHash });
    if (record === null || record.revokedAt !== null || (clientId !== null && record.clientId !== clientId)) return;
    const revoked = await deps.tx.run((stores) => revokeGrantInTx(deps, stores, { workspaceId: record.workspaceId, grantId: record.grantId, cause: "revoked_by_client", actor }));
    forgetCredentials(deps, revoked?.credentials ?? []);
    return;
  }
  if (!isWellFormedToken(token)) return;
  const credential = await deps.stores.credentials.findByTokenHash({ tokenHash });
  if (credential === null || credential.state !== "active") return;
  const grantId = await deps.stores.oauth.grantIdOfCredential({ workspaceId: credential.workspaceId, credentialId: credential.id });
  if (grantId === null) return;
  const grant = await deps.stores.oauth.findGrant({ workspaceId: credential.workspaceId, grantId });
  if (grant === null || (clientId !== null && grant.clientId !== clientId)) return;
  const revoked = await deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const result = await stores.credentials.revoke({ workspaceId: credential.workspaceId, credentialId: credential.id, now });
    if (result.kind !== "revoked") return null;
    await stores.audit.append({
      entry: accessAuditEntry(deps, actor, { workspaceId: credential.workspaceId, occurredAt: now, activity: "credential.revoked", subjectType: "credential", subjectId: credential.id, details: { ai_account_id: credential.aiAccountId, reason: "revoked_by_client", oauth_grant_id: grantId } }),
    });
    return result.credential;
  });
  if (revoked !== null) forgetCredentials(deps, [revoked]);
}
