import { hashToken } from "../access/token.ts";
import type { CoreDeps } from "../deps.ts";
import type { Stores } from "../ports.ts";
import { AUTHORIZATION_CODE_LIFETIME_MS, AUTHORIZATION_CODE_PREFIX, type AuthorizationCode } from "./model.ts";
import { newOAuthSecret } from "./secrets.ts";

/** What an approved authorization request fixes: who approved, for which client, acting as which AI account. */
export interface ApprovedAuthorization {
  clientId: string;
  workspaceId: string;
  personId: string | null;
  aiAccountId: string;
  scopes: readonly string[];
  redirectUri: string;
  codeChallenge: string;
  resource: string | null;
}

/**
 * Issues the single-use authorization code of an approval (valid AUTHORIZATION_CODE_LIFETIME_MS)
 * and marks the client used. The request was checked by the authorization endpoint; the AI
 * account belongs to the workspace. Returns the plaintext code (it goes to the redirect URI
 * only) and the stored record (its keyed hash).
 */
export async function issueAuthorizationCode(deps: Pick<CoreDeps, "clock" | "ids" | "secrets">, stores: Stores, a: ApprovedAuthorization): Promise<{ code: string; record: AuthorizationCode }> {
  const now = deps.clock.now();
  const code = newOAuthSecret(AUTHORIZATION_CODE_PREFIX);
  const record: AuthorizationCode = {
    id: deps.ids.next(),
    workspaceId: a.workspaceId,
    clientId: a.clientId,
    codeHash: hashToken(deps.secrets.pepper, code),
    personId: a.personId,
    aiAccountId: a.aiAccountId,
    scopes: [...a.scopes],
    redirectUri: a.redirectUri,
    codeChallenge: a.codeChallenge,
    resource: a.resource,
    createdAt: now,
    expiresAt: new Date(now.getTime() + AUTHORIZATION_CODE_LIFETIME_MS),
    consumedAt: null,
    grantId: null,
  };
  await stores.oauth.insertCode({ code: record });
  await stores.oauth.touchClient({ clientId: a.clientId, now });
  return { code, record };
}
