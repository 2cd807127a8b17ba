import type { Workspace } from "@agentq/core";
import type { SqlClient } from "../sql-client.ts";
import { toWorkspace, type WorkspaceRow } from "./workspaces.ts";

const WORKSPACE_COLUMNS = "id, name, state, max_deliveries, created_at, closed_at";

/** Revokes every AI account that is not revoked and every active credential of the workspace; their ids. */
async function revokeAll(sql: SqlClient, workspaceId: string, now: Date): Promise<{ accountIds: string[]; credentialIds: string[] }> {
  const accounts = await sql<{ id: string }[]>`
    update ai_accounts set state = 'revoked', updated_at = ${now} where workspace_id = ${workspaceId} and state <> 'revoked' returning id`;
  const credentials = await sql<{ id: string }[]>`
    update credentials set state = 'revoked', revoked_at = ${now} where workspace_id = ${workspaceId} and state = 'active' returning id`;
  return { accountIds: accounts.map((r) => r.id).sort(), credentialIds: credentials.map((r) => r.id).sort() };
}

/** Closes the workspace and revokes its accounts and credentials. Run inside a transaction. */
export async function workspaceClose(sql: SqlClient, p: { workspaceId: string; now: Date }): Promise<{ kind: "closed"; workspace: Workspace; accountIds: string[]; credentialIds: string[] } | { kind: "already_closed"; workspace: Workspace } | { kind: "not_found" }> {
  const [current] = await sql<WorkspaceRow[]>`select ${sql.unsafe(WORKSPACE_COLUMNS)} from workspaces where id = ${p.workspaceId} for update`;
  if (!current) return { kind: "not_found" };
  if (current.state === "closed") return { kind: "already_closed", workspace: toWorkspace(current) };
  const [row] = await sql<WorkspaceRow[]>`
    update workspaces set state = 'closed', closed_at = ${p.now} where id = ${p.workspaceId} returning ${sql.unsafe(WORKSPACE_COLUMNS)}`;
  return { kind: "closed", workspace: toWorkspace(row!), ...(await revokeAll(sql, p.workspaceId, p.now)) };
}

/** Freezes the workspace (a closed one stays closed) and revokes its accounts and credentials. Run inside a transaction. */
export async function workspaceFreezeAndRevoke(sql: SqlClient, p: { workspaceId: string; now: Date }): Promise<{ workspace: Workspace; accountIds: string[]; credentialIds: string[] } | null> {
  const [row] = await sql<WorkspaceRow[]>`
    update workspaces set state = case when state = 'closed' then state else 'frozen' end where id = ${p.workspaceId} returning ${sql.unsafe(WORKSPACE_COLUMNS)}`;
  if (!row) return null;
  return { workspace: toWorkspace(row), ...(await revokeAll(sql, p.workspaceId, p.now)) };
}

/** Closed workspaces due for payload deletion, oldest closing first. */
export async function workspacesDueForPayloadDeletion(sql: SqlClient, p: { closedBefore: Date; limit: number }): Promise<string[]> {
  const rows = await sql<{ id: string }[]>`
    select id from workspaces where state = 'closed' and payloads_deleted_at is null and closed_at <= ${p.closedBefore}
    order by closed_at limit ${p.limit}`;
  return rows.map((r) => r.id);
}

/** Deletes up to `limit` payloads of the workspace's messages; marks the workspace done when none was left. */
export async function workspaceDeletePayloads(sql: SqlClient, p: { workspaceId: string; now: Date; limit: number }): Promise<{ deleted: number; done: boolean }> {
  const rows = await sql`
    update messages set payload = 'null'::jsonb
    where workspace_id = ${p.workspaceId} and id in (
      select id from messages where workspace_id = ${p.workspaceId} and payload <> 'null'::jsonb limit ${p.limit})
    returning id`;
  if (rows.length > 0) return { deleted: rows.length, done: false };
  await sql`update workspaces set payloads_deleted_at = ${p.now} where id = ${p.workspaceId} and payloads_deleted_at is null`;
  return { deleted: 0, done: true };
}
