import type { AuthorizationCode, Credential, GrantRevocationCause, OAuthGrant, OAuthStore, RefreshTokenRecord } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import { queryStore } from "./pg-query-store.ts";
import * as q from "./queries/oauth.ts";

/** OAuthStore on PostgreSQL, bound to a pool or to one transaction. */
export class PgOAuthStore extends queryStore({
  insertClient: q.oauthClientsInsert, findClient: q.oauthClientsFind, touchClient: q.oauthClientsTouch, deleteIdleClients: q.oauthClientsDeleteIdle,
  insertCode: q.oauthCodesInsert, setCodeGrant: q.oauthCodesSetGrant, purgeCodes: q.oauthCodesPurge, insertGrant: q.oauthGrantsInsert,
  findGrant: q.oauthGrantsFind, listGrants: q.oauthGrantsList, latestGrantForClient: q.oauthGrantsLatestForClient,
  recordGrantUse: q.oauthGrantsRecordUse, linkAccessCredential: q.oauthGrantCredentialsInsert, grantIdOfCredential: q.oauthGrantOfCredential,
  insertRefreshToken: q.oauthRefreshInsert, findRefreshToken: q.oauthRefreshFind,
}) implements OAuthStore {
  consumeCode(p: { codeHash: string; now: Date }): Promise<{ kind: "consumed"; code: AuthorizationCode } | { kind: "already_consumed"; code: AuthorizationCode } | { kind: "not_found" }> {
    return withPgErrors(async () => {
      const consumed = await q.oauthCodesConsume(this.sql, p);
      if (consumed !== null) return { kind: "consumed", code: consumed };
      const stored = await q.oauthCodesFindByHash(this.sql, p);
      return stored === null ? { kind: "not_found" } : { kind: "already_consumed", code: stored };
    });
  }

  revokeGrant(p: { workspaceId: string; grantId: string; cause: GrantRevocationCause; now: Date }): Promise<{ kind: "revoked"; grant: OAuthGrant; credentials: Credential[] } | { kind: "already_revoked"; grant: OAuthGrant } | { kind: "not_found" }> {
    return withPgErrors(async () => {
      const grant = await q.oauthGrantsRevoke(this.sql, p);
      if (grant === null) {
        const stored = await q.oauthGrantsFind(this.sql, p);
        return stored === null ? { kind: "not_found" } : { kind: "already_revoked", grant: stored };
      }
      await q.oauthRefreshRevokeForGrant(this.sql, p);
      const credentials = await q.oauthCredentialsRevokeForGrant(this.sql, p);
      return { kind: "revoked", grant, credentials };
    });
  }

  spendRefreshToken(p: { tokenHash: string; clientId: string; now: Date }): Promise<{ kind: "spent"; token: RefreshTokenRecord } | { kind: "refused"; token: RefreshTokenRecord | null }> {
    return withPgErrors(async () => {
      const spent = await q.oauthRefreshSpend(this.sql, p);
      if (spent !== null) return { kind: "spent", token: spent };
      return { kind: "refused", token: await q.oauthRefreshFind(this.sql, p) };
    });
  }
}
