import type { AuthorizationCode, Credential, GrantRevocationCause, OAuthClient, OAuthGrant, RefreshTokenRecord } from "@agentq/core";
import type { SqlClient } from "../sql-client.ts";
import { credentialsFromRows, type CredentialRow } from "./credentials.ts";
import { json } from "./json.ts";

interface ClientRow {
  id: string;
  client_name: string | null;
  redirect_uris: string[];
  metadata: Record<string, unknown>;
  created_at: Date;
  last_used_at: Date | null;
}

interface CodeRow {
  workspace_id: string;
  id: string;
  client_id: string;
  code_hash: string;
  person_id: string | null;
  ai_account_id: string;
  scopes: string[];
  redirect_uri: string;
  code_challenge: string;
  resource: string | null;
  created_at: Date;
  expires_at: Date;
  consumed_at: Date | null;
  grant_id: string | null;
}

interface GrantRow {
  workspace_id: string;
  id: string;
  client_id: string;
  client_name: string | null;
  redirect_uri: string;
  ai_account_id: string;
  person_id: string | null;
  scopes: string[];
  created_at: Date;
  last_used_at: Date;
  refresh_expires_at: Date;
  revoked_at: Date | null;
  revoked_reason: GrantRevocationCause | null;
}

interface RefreshRow {
  workspace_id: string;
  id: string;
  grant_id: string;
  client_id: string;
  generation: number;
  token_hash: string;
  created_at: Date;
  expires_at: Date;
  spent_at: Date | null;
  revoked_at: Date | null;
}

const toClient = (r: ClientRow): OAuthClient => ({ id: r.id, name: r.client_name, redirectUris: r.redirect_uris, metadata: r.metadata, createdAt: r.created_at, lastUsedAt: r.last_used_at });

const toCode = (r: CodeRow): AuthorizationCode => ({
  id: r.id,
  workspaceId: r.workspace_id,
  clientId: r.client_id,
  codeHash: r.code_hash,
  personId: r.person_id,
  aiAccountId: r.ai_account_id,
  scopes: r.scopes,
  redirectUri: r.redirect_uri,
  codeChallenge: r.code_challenge,
  resource: r.resource,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  consumedAt: r.consumed_at,
  grantId: r.grant_id,
});

const toGrant = (r: GrantRow): OAuthGrant => ({
  id: r.id,
  workspaceId: r.workspace_id,
  clientId: r.client_id,
  clientName: r.client_name,
  redirectUri: r.redirect_uri,
  aiAccountId: r.ai_account_id,
  personId: r.person_id,
  scopes: r.scopes,
  createdAt: r.created_at,
  lastUsedAt: r.last_used_at,
  refreshExpiresAt: r.refresh_expires_at,
  revokedAt: r.revoked_at,
  revokedReason: r.revoked_reason,
});

const toRefresh = (r: RefreshRow): RefreshTokenRecord => ({
  id: r.id,
  workspaceId: r.workspace_id,
  grantId: r.grant_id,
  clientId: r.client_id,
  generation: r.generation,
  tokenHash: r.token_hash,
  createdAt: r.created_at,
  expiresAt: r.expires_at,
  spentAt: r.spent_at,
  revokedAt: r.revoked_at,
});

/** Inserts a client. */
export async function oauthClientsInsert(sql: SqlClient, p: { client: OAuthClient }): Promise<void> {
  const c = p.client;
  await sql`
    insert into oauth_clients (id, client_name, redirect_uris, metadata, created_at, last_used_at)
    values (${c.id}, ${c.name}, ${c.redirectUris}::text[], ${json(sql, c.metadata)}::jsonb, ${c.createdAt}, ${c.lastUsedAt})`;
}

/** The client, or null. */
export async function oauthClientsFind(sql: SqlClient, p: { clientId: string }): Promise<OAuthClient | null> {
  const [row] = await sql<ClientRow[]>`select * from oauth_clients where id = ${p.clientId}`;
  return row ? toClient(row) : null;
}

/** Sets last_used_at. */
export async function oauthClientsTouch(sql: SqlClient, p: { clientId: string; now: Date }): Promise<void> {
  await sql`update oauth_clients set last_used_at = ${p.now} where id = ${p.clientId}`;
}

/** Deletes up to `limit` idle clients; how many. */
export async function oauthClientsDeleteIdle(sql: SqlClient, p: { unusedBefore: Date; idleBefore: Date; limit: number }): Promise<number> {
  const latest = p.unusedBefore.getTime() > p.idleBefore.getTime() ? p.unusedBefore : p.idleBefore;
  const rows = await sql`
    delete from oauth_clients where id in (
      select id from oauth_clients
      where coalesce(last_used_at, created_at) < ${latest}
        and ((last_used_at is null and created_at < ${p.unusedBefore}) or last_used_at < ${p.idleBefore})
      limit ${p.limit})
    returning id`;
  return rows.length;
}

/** Inserts a code. */
export async function oauthCodesInsert(sql: SqlClient, p: { code: AuthorizationCode }): Promise<void> {
  const c = p.code;
  await sql`
    insert into oauth_authorization_codes (workspace_id, id, client_id, code_hash, person_id, ai_account_id, scopes, redirect_uri, code_challenge, resource, created_at, expires_at, consumed_at, grant_id)
    values (${c.workspaceId}, ${c.id}, ${c.clientId}, ${c.codeHash}, ${c.personId}, ${c.aiAccountId}, ${c.scopes}::text[], ${c.redirectUri}, ${c.codeChallenge}, ${c.resource}, ${c.createdAt}, ${c.expiresAt}, ${c.consumedAt}, ${c.grantId})`;
}

/**
 * Consume-once: one guarded UPDATE. Of concurrent calls the first takes the row lock; the others
 * wait, re-check `consumed_at is null` against the committed row, and match nothing.
 */
export async function oauthCodesConsume(sql: SqlClient, p: { codeHash: string; now: Date }): Promise<AuthorizationCode | null> {
  const [row] = await sql<CodeRow[]>`update oauth_authorization_codes set consumed_at = ${p.now} where code_hash = ${p.codeHash} and consumed_at is null returning *`;
  return row ? toCode(row) : null;
}

/** The code with that hash, or null. */
export async function oauthCodesFindByHash(sql: SqlClient, p: { codeHash: string }): Promise<AuthorizationCode | null> {
  const [row] = await sql<CodeRow[]>`select * from oauth_authorization_codes where code_hash = ${p.codeHash}`;
  return row ? toCode(row) : null;
}

/** Records the grant of a consumed code. */
export async function oauthCodesSetGrant(sql: SqlClient, p: { workspaceId: string; codeId: string; grantId: string }): Promise<void> {
  await sql`update oauth_authorization_codes set grant_id = ${p.grantId} where workspace_id = ${p.workspaceId} and id = ${p.codeId}`;
}

/** Deletes up to `limit` codes that expired before `before`. */
export async function oauthCodesPurge(sql: SqlClient, p: { before: Date; limit: number }): Promise<number> {
  const rows = await sql`
    delete from oauth_authorization_codes where (workspace_id, id) in (
      select workspace_id, id from oauth_authorization_codes where expires_at < ${p.before} limit ${p.limit})
    returning id`;
  return rows.length;
}

/** Inserts a grant. */
export async function oauthGrantsInsert(sql: SqlClient, p: { grant: OAuthGrant }): Promise<void> {
  const g = p.grant;
  await sql`
    insert into oauth_grants (workspace_id, id, client_id, client_name, redirect_uri, ai_account_id, person_id, scopes, created_at, last_used_at, refresh_expires_at, revoked_at, revoked_reason)
    values (${g.workspaceId}, ${g.id}, ${g.clientId}, ${g.clientName}, ${g.redirectUri}, ${g.aiAccountId}, ${g.personId}, ${g.scopes}::text[], ${g.createdAt}, ${g.lastUsedAt}, ${g.refreshExpiresAt}, ${g.revokedAt}, ${g.revokedReason})`;
}

/** The grant, or null. */
export async function oauthGrantsFind(sql: SqlClient, p: { workspaceId: string; grantId: string }): Promise<OAuthGrant | null> {
  const [row] = await sql<GrantRow[]>`select * from oauth_grants where workspace_id = ${p.workspaceId} and id = ${p.grantId}`;
  return row ? toGrant(row) : null;
}

/** A page of the workspace's grants, newest first, at most `limit + 1`. */
export async function oauthGrantsList(sql: SqlClient, p: { workspaceId: string; after: string | null; limit: number }): Promise<OAuthGrant[]> {
  const rows = await sql<GrantRow[]>`
    select * from oauth_grants
    where workspace_id = ${p.workspaceId} and (${p.after}::text is null or id < ${p.after})
    order by id desc limit ${p.limit + 1}`;
  return rows.map(toGrant);
}

/** The newest grant of the workspace for the client, or null. */
export async function oauthGrantsLatestForClient(sql: SqlClient, p: { workspaceId: string; clientId: string }): Promise<OAuthGrant | null> {
  const [row] = await sql<GrantRow[]>`select * from oauth_grants where workspace_id = ${p.workspaceId} and client_id = ${p.clientId} order by id desc limit 1`;
  return row ? toGrant(row) : null;
}

/** Records a token issue under an unrevoked grant. */
export async function oauthGrantsRecordUse(sql: SqlClient, p: { workspaceId: string; grantId: string; now: Date; refreshExpiresAt: Date }): Promise<void> {
  await sql`update oauth_grants set last_used_at = ${p.now}, refresh_expires_at = ${p.refreshExpiresAt} where workspace_id = ${p.workspaceId} and id = ${p.grantId} and revoked_at is null`;
}

/** Revokes an unrevoked grant (guarded); the revoked grant, or null when nothing matched. */
export async function oauthGrantsRevoke(sql: SqlClient, p: { workspaceId: string; grantId: string; cause: GrantRevocationCause; now: Date }): Promise<OAuthGrant | null> {
  const [row] = await sql<GrantRow[]>`
    update oauth_grants set revoked_at = ${p.now}, revoked_reason = ${p.cause}
    where workspace_id = ${p.workspaceId} and id = ${p.grantId} and revoked_at is null
    returning *`;
  return row ? toGrant(row) : null;
}

/** Revokes every refresh token of the grant. */
export async function oauthRefreshRevokeForGrant(sql: SqlClient, p: { workspaceId: string; grantId: string; now: Date }): Promise<void> {
  await sql`update oauth_refresh_tokens set revoked_at = ${p.now} where workspace_id = ${p.workspaceId} and grant_id = ${p.grantId} and revoked_at is null`;
}

/** Revokes every active credential linked to the grant; those it revoked, in id order. */
export async function oauthCredentialsRevokeForGrant(sql: SqlClient, p: { workspaceId: string; grantId: string; now: Date }): Promise<Credential[]> {
  const rows = await sql<CredentialRow[]>`
    update credentials c set state = 'revoked', revoked_at = ${p.now}
    from oauth_grant_credentials l
    where l.workspace_id = ${p.workspaceId} and l.grant_id = ${p.grantId}
      and c.workspace_id = l.workspace_id and c.id = l.credential_id and c.state = 'active'
    returning c.*`;
  return credentialsFromRows(rows);
}

/** Links an access credential to its grant. */
export async function oauthGrantCredentialsInsert(sql: SqlClient, p: { workspaceId: string; grantId: string; credentialId: string }): Promise<void> {
  await sql`insert into oauth_grant_credentials (workspace_id, credential_id, grant_id) values (${p.workspaceId}, ${p.credentialId}, ${p.grantId})`;
}

/** The grant of an access credential, or null. */
export async function oauthGrantOfCredential(sql: SqlClient, p: { workspaceId: string; credentialId: string }): Promise<string | null> {
  const [row] = await sql<{ grant_id: string }[]>`select grant_id from oauth_grant_credentials where workspace_id = ${p.workspaceId} and credential_id = ${p.credentialId}`;
  return row?.grant_id ?? null;
}

/** Inserts a refresh token generation. */
export async function oauthRefreshInsert(sql: SqlClient, p: { token: RefreshTokenRecord }): Promise<void> {
  const t = p.token;
  await sql`
    insert into oauth_refresh_tokens (workspace_id, id, grant_id, client_id, generation, token_hash, created_at, expires_at, spent_at, revoked_at)
    values (${t.workspaceId}, ${t.id}, ${t.grantId}, ${t.clientId}, ${t.generation}, ${t.tokenHash}, ${t.createdAt}, ${t.expiresAt}, ${t.spentAt}, ${t.revokedAt})`;
}

/**
 * Rotate-once: one statement spends the current token (guarded by client, unspent, unrevoked,
 * unexpired; concurrent spenders serialise on the row lock and the losers match nothing) and
 * deletes the earlier generations of its grant. The spent token, or null.
 */
export async function oauthRefreshSpend(sql: SqlClient, p: { tokenHash: string; clientId: string; now: Date }): Promise<RefreshTokenRecord | null> {
  const [row] = await sql<RefreshRow[]>`
    with spent as (
      update oauth_refresh_tokens set spent_at = ${p.now}
      where token_hash = ${p.tokenHash} and client_id = ${p.clientId} and spent_at is null and revoked_at is null and expires_at > ${p.now}
      returning *
    ), forgotten as (
      delete from oauth_refresh_tokens r using spent s
      where r.workspace_id = s.workspace_id and r.grant_id = s.grant_id and r.generation < s.generation
    )
    select * from spent`;
  return row ? toRefresh(row) : null;
}

/** The refresh token with that hash, or null. */
export async function oauthRefreshFind(sql: SqlClient, p: { tokenHash: string }): Promise<RefreshTokenRecord | null> {
  const [row] = await sql<RefreshRow[]>`select * from oauth_refresh_tokens where token_hash = ${p.tokenHash}`;
  return row ? toRefresh(row) : null;
}
