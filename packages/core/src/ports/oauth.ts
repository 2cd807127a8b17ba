import type { Credential } from "../access/model.ts";
import type { AuthorizationCode, GrantRevocationCause, OAuthClient, OAuthGrant, RefreshTokenRecord } from "../oauth/model.ts";

// The OAuth seam (DESIGN §2b): clients, codes, grants and refresh tokens of MCP connections.
// Every port's general rules: src/ports.ts.

/**
 * OAuth clients (global: registration has no workspace), authorization codes, grants, the
 * grants' access credentials and refresh tokens. Codes and refresh tokens are stored only as
 * keyed hashes. Writes that must happen once are single guarded statements: `consumeCode`
 * (consume-once) and `spendRefreshToken` (rotate-once); of two concurrent calls with the same
 * code or token exactly one wins, and the loser sees the winner's committed write.
 */
export interface OAuthStore {
  /** Inserts a client. */
  insertClient(p: { client: OAuthClient }): Promise<void>;
  /** The client, or null (never registered, or expired and deleted). */
  findClient(p: { clientId: string }): Promise<OAuthClient | null>;
  /** Sets the client's lastUsedAt to `now`. */
  touchClient(p: { clientId: string; now: Date }): Promise<void>;
  /**
   * Deletes up to `limit` idle clients: never used and registered before `unusedBefore`, or last
   * used before `idleBefore`. Returns how many. Their grants stay (Connections keeps the name).
   */
  deleteIdleClients(p: { unusedBefore: Date; idleBefore: Date; limit: number }): Promise<number>;

  /** Inserts an authorization code. */
  insertCode(p: { code: AuthorizationCode }): Promise<void>;
  /**
   * Consumes the code with that hash, any workspace, in one guarded write: sets consumedAt = now
   * where it is not yet consumed. `consumed` for the winner (the code as updated, whether or not
   * it expired: the caller checks); `already_consumed` (with the stored code) when it was
   * consumed before, also for the loser of two concurrent consumptions once the winner
   * committed; `not_found` otherwise.
   */
  consumeCode(p: { codeHash: string; now: Date }): Promise<{ kind: "consumed"; code: AuthorizationCode } | { kind: "already_consumed"; code: AuthorizationCode } | { kind: "not_found" }>;
  /** Records the grant a consumed code's exchange created. */
  setCodeGrant(p: { workspaceId: string; codeId: string; grantId: string }): Promise<void>;
  /** Deletes up to `limit` codes (any workspace) that expired before `before`; returns how many. */
  purgeCodes(p: { before: Date; limit: number }): Promise<number>;

  /** Inserts a grant. */
  insertGrant(p: { grant: OAuthGrant }): Promise<void>;
  /** The grant, or null (missing or of another workspace). */
  findGrant(p: { workspaceId: string; grantId: string }): Promise<OAuthGrant | null>;
  /** The workspace's grants, newest first (id descending); `after` is a grant id. */
  listGrants(p: { workspaceId: string; after: string | null; limit: number }): Promise<OAuthGrant[]>;
  /** The newest grant of the workspace for that client, any state, or null. */
  latestGrantForClient(p: { workspaceId: string; clientId: string }): Promise<OAuthGrant | null>;
  /** Records a token issue under an unrevoked grant: lastUsedAt = now, refreshExpiresAt as given. */
  recordGrantUse(p: { workspaceId: string; grantId: string; now: Date; refreshExpiresAt: Date }): Promise<void>;
  /**
   * Revokes an unrevoked grant (revokedAt = now, revokedReason = cause; a guarded write: of two
   * concurrent revocations one wins), every refresh token of it (revokedAt = now) and every
   * active access credential linked to it (state revoked). Returns the grant and the credentials
   * it revoked; `already_revoked` (with the grant) or `not_found` otherwise. Call it inside a
   * transaction: its writes belong together.
   */
  revokeGrant(p: { workspaceId: string; grantId: string; cause: GrantRevocationCause; now: Date }): Promise<{ kind: "revoked"; grant: OAuthGrant; credentials: Credential[] } | { kind: "already_revoked"; grant: OAuthGrant } | { kind: "not_found" }>;

  /** Links an access credential to the grant it was issued under. */
  linkAccessCredential(p: { workspaceId: string; grantId: string; credentialId: string }): Promise<void>;
  /** The grant an access credential was issued under, or null (not an OAuth access token). */
  grantIdOfCredential(p: { workspaceId: string; credentialId: string }): Promise<string | null>;

  /** Inserts a refresh token generation. */
  insertRefreshToken(p: { token: RefreshTokenRecord }): Promise<void>;
  /**
   * Rotate-once: in one guarded write, spends the token with that hash (spentAt = now) when it
   * belongs to `clientId`, is unspent, unrevoked and unexpired, and forgets every earlier
   * generation of its grant. `spent` (the token as updated) for the winner; otherwise
   * `refused` with the stored token (or null when no token has that hash): the caller tells a
   * replay of the most recently spent token from an expired, revoked or foreign one.
   */
  spendRefreshToken(p: { tokenHash: string; clientId: string; now: Date }): Promise<{ kind: "spent"; token: RefreshTokenRecord } | { kind: "refused"; token: RefreshTokenRecord | null }>;
  /** The refresh token with that hash (any workspace), or null. */
  findRefreshToken(p: { tokenHash: string }): Promise<RefreshTokenRecord | null>;
}
