import type { AiAccount, AiAccountState, Workspace, WorkspaceState } from "@agentq/core";
import type { SqlClient } from "../sql-client.ts";

interface AiAccountRow {
  workspace_id: string;
  id: string;
  friendly_name: string;
  state: AiAccountState;
  created_at: Date;
  updated_at: Date;
  last_active_at: Date | null;
}

function toAccount(r: AiAccountRow): AiAccount {
  return { id: r.id, workspaceId: r.workspace_id, friendlyName: r.friendly_name, state: r.state, createdAt: r.created_at, updatedAt: r.updated_at, lastActiveAt: r.last_active_at };
}

/**
 * Inserts an account unless a non-revoked account of the workspace has its friendly name
 * (`ON CONFLICT` on the partial unique index). True when inserted.
 */
export async function aiAccountsInsert(sql: SqlClient, p: { account: AiAccount }): Promise<boolean> {
  const a = p.account;
  const rows = await sql`
    insert into ai_accounts (workspace_id, id, friendly_name, state, created_at, updated_at, last_active_at)
    values (${a.workspaceId}, ${a.id}, ${a.friendlyName}, ${a.state}, ${a.createdAt}, ${a.updatedAt}, ${a.lastActiveAt})
    on conflict (workspace_id, friendly_name) where state <> 'revoked' do nothing
    returning id`;
  return rows.length === 1;
}

/** The account (any state), or null. */
export async function aiAccountsFindById(sql: SqlClient, p: { workspaceId: string; accountId: string }): Promise<AiAccount | null> {
  const [row] = await sql<AiAccountRow[]>`select * from ai_accounts where workspace_id = ${p.workspaceId} and id = ${p.accountId}`;
  return row ? toAccount(row) : null;
}

/** The non-revoked account with the friendly name, or null. */
export async function aiAccountsFindAddressable(sql: SqlClient, p: { workspaceId: string; friendlyName: string }): Promise<AiAccount | null> {
  const [row] = await sql<AiAccountRow[]>`
    select * from ai_accounts where workspace_id = ${p.workspaceId} and friendly_name = ${p.friendlyName} and state <> 'revoked'`;
  return row ? toAccount(row) : null;
}

/** A page of the workspace's accounts in id order, at most `limit + 1`. */
export async function aiAccountsList(sql: SqlClient, p: { workspaceId: string; states: readonly AiAccountState[] | null; after: string | null; limit: number }): Promise<AiAccount[]> {
  const rows = await sql<AiAccountRow[]>`
    select * from ai_accounts
    where workspace_id = ${p.workspaceId}
      and (${p.states === null}::boolean or state = any(${p.states ?? []}::text[]))
      and (${p.after}::text is null or id > ${p.after})
    order by id
    limit ${p.limit + 1}`;
  return rows.map(toAccount);
}

/**
 * Renames a non-revoked account. Null when it is missing or revoked; throws a unique violation
 * of `ai_accounts_friendly_name_key` when the name is taken.
 */
export async function aiAccountsRename(sql: SqlClient, p: { workspaceId: string; accountId: string; friendlyName: string; now: Date }): Promise<AiAccount | null> {
  const [row] = await sql<AiAccountRow[]>`
    update ai_accounts set friendly_name = ${p.friendlyName}, updated_at = ${p.now}
    where workspace_id = ${p.workspaceId} and id = ${p.accountId} and state <> 'revoked'
    returning *`;
  return row ? toAccount(row) : null;
}

/** True when a non-revoked account other than `exceptId` holds the friendly name. */
export async function aiAccountsNameTaken(sql: SqlClient, p: { workspaceId: string; friendlyName: string; exceptId: string }): Promise<boolean> {
  const rows = await sql`
    select 1 from ai_accounts
    where workspace_id = ${p.workspaceId} and friendly_name = ${p.friendlyName} and state <> 'revoked' and id <> ${p.exceptId}`;
  return rows.length > 0;
}

/** Moves the account to `to` when its state is in `from`; the updated account, or null. */
export async function aiAccountsTransition(sql: SqlClient, p: { workspaceId: string; accountId: string; from: readonly AiAccountState[]; to: AiAccountState; now: Date }): Promise<AiAccount | null> {
  const [row] = await sql<AiAccountRow[]>`
    update ai_accounts set state = ${p.to}, updated_at = ${p.now}
    where workspace_id = ${p.workspaceId} and id = ${p.accountId} and state = any(${[...p.from]}::text[])
    returning *`;
  return row ? toAccount(row) : null;
}

/** The account and its workspace by account id alone (the authenticator's one read), or null. */
export async function aiAccountsLoadPrincipalContext(sql: SqlClient, p: { accountId: string }): Promise<{ account: AiAccount; workspace: Workspace } | null> {
  const [row] = await sql<(AiAccountRow & { w_name: string; w_state: WorkspaceState; w_max_deliveries: number; w_created_at: Date })[]>`
    select a.*, w.name as w_name, w.state as w_state, w.max_deliveries as w_max_deliveries, w.created_at as w_created_at
    from ai_accounts a join workspaces w on w.id = a.workspace_id
    where a.id = ${p.accountId}
    limit 1`;
  if (!row) return null;
  return {
    account: toAccount(row),
    workspace: { id: row.workspace_id, name: row.w_name, state: row.w_state, maxDeliveries: row.w_max_deliveries, createdAt: row.w_created_at },
  };
}
