import type { AuthorizationCode, Credential, GrantRevocationCause, OAuthClient, OAuthGrant, OAuthStore, RefreshTokenRecord } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import * as q from "./queries/oauth.ts";
import type { SqlClient } from "./sql-client.ts";

/** OAuthStore on PostgreSQL, bound to a pool or to one transaction. */
export class PgOAuthStore implements OAuthStore {
  constructor(private readonly sql: SqlClient) {}

  insertClient(p: { client: OAuthClient }): Promise<void> {
    return withPgErrors(() => q.oauthClientsInsert(this.sql, p));
  }

  findClient(p: { clientId: string }): Promise<OAuthClient | null> {
    return withPgErrors(() => q.oauthClientsFind(this.sql, p));
  }

  touchClient(p: { clientId: string; now: Date }): Promise<void> {
    return withPgErrors(() => q.oauthClientsTouch(this.sql, p));
  }

  deleteIdleClients(p: { unusedBefore: Date; idleBefore: Date; limit: number }): Promise<number> {
    return withPgErrors(() => q.oauthClientsDeleteIdle(this.sql, p));
  }

  insertCode(p: { code: AuthorizationCode }): Promise<void> {
    return withPgErrors(() => q.oauthCodesInsert(this.sql, p));
  }

  consumeCode(p: { codeHash: string; now: Date }): Promise<{ kind: "consumed"; code: AuthorizationCode } | { kind: "already_consumed"; code: AuthorizationCode } | { kind: "not_found" }> {
    return withPgErrors(async () => {
      const consumed = await q.oauthCodesConsume(this.sql, p);
      if (consumed !== null) return { kind: "consumed", code: consumed };
      const stored = await q.oauthCodesFindByHash(this.sql, p);
      return stored === null ? { kind: "not_found" } : { kind: "already_consumed", code: stored };
    });
  }

  setCodeGrant(p: { workspaceId: string; codeId: string; grantId: string }): Promise<void> {
    return withPgErrors(() => q.oauthCodesSetGrant(this.sql, p));
  }

  purgeCodes(p: { before: Date; limit: number }): Promise<number> {
    return withPgErrors(() => q.oauthCodesPurge(this.sql, p));
  }

  insertGrant(p: { grant: OAuthGrant }): Promise<void> {
    return withPgErrors(() => q.oauthGrantsInsert(this.sql, p));
  }

  findGrant(p: { workspaceId: string; grantId: string }): Promise<OAuthGrant | null> {
    return withPgErrors(() => q.oauthGrantsFind(this.sql, p));
  }

  listGrants(p: { workspaceId: string; after: string | null; limit: number }): Promise<OAuthGrant[]> {
    return withPgErrors(() => q.oauthGrantsList(this.sql, p));
  }

  latestGrantForClient(p: { workspaceId: string; clientId: string }): Promise<OAuthGrant | null> {
    return withPgErrors(() => q.oauthGrantsLatestForClient(this.sql, p));
  }

  recordGrantUse(p: { workspaceId: string; grantId: string; now: Date; refreshExpiresAt: Date }): Promise<void> {
    return withPgErrors(() => q.oauthGrantsRecordUse(this.sql, p));
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

  linkAccessCredential(p: { workspaceId: string; grantId: string; credentialId: string }): Promise<void> {
    return withPgErrors(() => q.oauthGrantCredentialsInsert(this.sql, p));
  }

  grantIdOfCredential(p: { workspaceId: string; credentialId: string }): Promise<string | null> {
    return withPgErrors(() => q.oauthGrantOfCredential(this.sql, p));
  }

  insertRefreshToken(p: { token: RefreshTokenRecord }): Promise<void> {
    return withPgErrors(() => q.oauthRefreshInsert(this.sql, p));
  }

  spendRefreshToken(p: { tokenHash: string; clientId: string; now: Date }): Promise<{ kind: "spent"; token: RefreshTokenRecord } | { kind: "refused"; token: RefreshTokenRecord | null }> {
    return withPgErrors(async () => {
      const spent = await q.oauthRefreshSpend(this.sql, p);
      if (spent !== null) return { kind: "spent", token: spent };
      return { kind: "refused", token: await q.oauthRefreshFind(this.sql, p) };
    });
  }

  findRefreshToken(p: { tokenHash: string }): Promise<RefreshTokenRecord | null> {
    return withPgErrors(() => q.oauthRefreshFind(this.sql, p));
  }
}
