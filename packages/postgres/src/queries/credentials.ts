import type { Credential, CredentialState, Tier } from "@agentq/core";
import type { SqlClient } from "../sql-client.ts";

/** A row of `credentials`. */
export interface CredentialRow {
  workspace_id: string;
  id: string;
  ai_account_id: string;
  tier: Tier;
  scopes: string[];
  name: string;
  state: CredentialState;
  token_hash: string;
  expires_at: Date | null;
  project_id: string | null;
  created_at: Date;
  revoked_at: Date | null;
  rotated_from_id: string | null;
  rotated_to_id: string | null;
  last_used_at: Date | null;
}

function toCredential(r: CredentialRow): Credential {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    aiAccountId: r.ai_account_id,
    tier: r.tier,
    scopes: r.scopes,
    name: r.name,
    state: r.state,
    tokenHash: r.token_hash,
    expiresAt: r.expires_at,
    projectId: r.project_id,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
    rotatedFromId: r.rotated_from_id,
    rotatedToId: r.rotated_to_id,
    lastUsedAt: r.last_used_at,
  };
}

/** Credentials of rows, in id order. */
export function credentialsFromRows(rows: readonly CredentialRow[]): Credential[] {
  return rows.map(toCredential).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/** Inserts a credential. */
export async function credentialsInsert(sql: SqlClient, p: { credential: Credential }): Promise<void> {
  const c = p.credential;
  await sql`
    insert into credentials (workspace_id, id, ai_account_id, tier, scopes, name, state, token_hash, expires_at, project_id, created_at, revoked_at, rotated_from_id, rotated_to_id, last_used_at)
    values (${c.workspaceId}, ${c.id}, ${c.aiAccountId}, ${c.tier}, ${c.scopes}::text[], ${c.name}, ${c.state}, ${c.tokenHash}, ${c.expiresAt}, ${c.projectId}, ${c.createdAt}, ${c.revokedAt}, ${c.rotatedFromId}, ${c.rotatedToId}, ${c.lastUsedAt})`;
}

/** The credential with the token hash (any workspace), or null. */
export async function credentialsFindByTokenHash(sql: SqlClient, p: { tokenHash: string }): Promise<Credential | null> {
  const [row] = await sql<CredentialRow[]>`select * from credentials where token_hash = ${p.tokenHash}`;
  return row ? toCredential(row) : null;
}

/** The credential, or null. */
export async function credentialsFindById(sql: SqlClient, p: { workspaceId: string; credentialId: string }): Promise<Credential | null> {
  const [row] = await sql<CredentialRow[]>`select * from credentials where workspace_id = ${p.workspaceId} and id = ${p.credentialId}`;
  return row ? toCredential(row) : null;
}

/** A page of the workspace's credentials, newest first, at most `limit + 1`. */
export async function credentialsList(sql: SqlClient, p: { workspaceId: string; aiAccountId: string | null; after: string | null; limit: number }): Promise<Credential[]> {
  const rows = await sql<CredentialRow[]>`
    select * from credentials
    where workspace_id = ${p.workspaceId}
      and (${p.aiAccountId}::text is null or ai_account_id = ${p.aiAccountId})
      and (${p.after}::text is null or id < ${p.after})
    order by id desc
    limit ${p.limit + 1}`;
  return rows.map(toCredential);
}

/** Revokes an active credential; the updated credential, or null when it is not active (or missing). */
export async function credentialsRevoke(sql: SqlClient, p: { workspaceId: string; credentialId: string; now: Date }): Promise<Credential | null> {
  const [row] = await sql<CredentialRow[]>`
    update credentials set state = 'revoked', revoked_at = ${p.now}
    where workspace_id = ${p.workspaceId} and id = ${p.credentialId} and state = 'active'
    returning *`;
  return row ? toCredential(row) : null;
}

/** Revokes every active credential of the account; those it revoked, in id order. */
export async function credentialsRevokeAllForAccount(sql: SqlClient, p: { workspaceId: string; aiAccountId: string; now: Date }): Promise<Credential[]> {
  const rows = await sql<CredentialRow[]>`
    update credentials set state = 'revoked', revoked_at = ${p.now}
    where workspace_id = ${p.workspaceId} and ai_account_id = ${p.aiAccountId} and state = 'active'
    returning *`;
  return rows.map(toCredential).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * Marks an active, not yet rotated credential as rotated to `successorId`, cutting its expiry
 * to the overlap end unless it already ends earlier. The row lock of the UPDATE serialises two
 * concurrent rotations: the second re-checks `rotated_to_id is null` after the first commits
 * and matches nothing. Null when nothing matched.
 */
export async function credentialsMarkRotated(sql: SqlClient, p: { workspaceId: string; credentialId: string; successorId: string; overlapEndsAt: Date }): Promise<Credential | null> {
  const [row] = await sql<CredentialRow[]>`
    update credentials
    set rotated_to_id = ${p.successorId},
        expires_at = least(coalesce(expires_at, ${p.overlapEndsAt}), ${p.overlapEndsAt})
    where workspace_id = ${p.workspaceId} and id = ${p.credentialId} and state = 'active' and rotated_to_id is null
    returning *`;
  return row ? toCredential(row) : null;
}

/**
 * Records a use of the credential (the authenticator's throttled write): in one statement, its
 * `last_used_at`, its account's `last_active_at` and, for an OAuth access token, its grant's
 * `last_used_at` become `now`, each only where null or before `staleBefore`. Three primary-key
 * updates at most, scoped by workspace; a row already recent is not written (no dead tuple).
 */
export async function credentialsRecordUse(sql: SqlClient, p: { workspaceId: string; credentialId: string; aiAccountId: string; now: Date; staleBefore: Date }): Promise<void> {
  await sql`
    with used as (
      update credentials set last_used_at = ${p.now}
      where workspace_id = ${p.workspaceId} and id = ${p.credentialId} and (last_used_at is null or last_used_at < ${p.staleBefore})
      returning 1
    ),
    active as (
      update ai_accounts set last_active_at = ${p.now}
      where workspace_id = ${p.workspaceId} and id = ${p.aiAccountId} and (last_active_at is null or last_active_at < ${p.staleBefore})
      returning 1
    ),
    connected as (
      update oauth_grants g set last_used_at = ${p.now}
      from oauth_grant_credentials l
      where l.workspace_id = ${p.workspaceId} and l.credential_id = ${p.credentialId}
        and g.workspace_id = l.workspace_id and g.id = l.grant_id and g.revoked_at is null and g.last_used_at < ${p.staleBefore}
      returning 1
    )
    select (select count(*) from used) + (select count(*) from active) + (select count(*) from connected) as n`;
}
