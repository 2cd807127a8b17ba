import type { Person, Workspace, WorkspaceState } from "@agentq/core";
import type { SqlClient } from "../sql-client.ts";

interface WorkspaceRow {
  id: string;
  name: string;
  state: WorkspaceState;
  max_deliveries: number;
  created_at: Date;
}

interface PersonRow {
  id: string;
  workspace_id: string;
  email: string;
  password_hash: string | null;
  created_at: Date;
}

function toWorkspace(r: WorkspaceRow): Workspace {
  return { id: r.id, name: r.name, state: r.state, maxDeliveries: r.max_deliveries, createdAt: r.created_at };
}

function toPerson(r: PersonRow): Person {
  return { id: r.id, workspaceId: r.workspace_id, email: r.email, passwordHash: r.password_hash, createdAt: r.created_at };
}

/**
 * Inserts a workspace and its owner person in one statement, both or neither: the person goes
 * in first with `ON CONFLICT (email) DO NOTHING` (a concurrent insert of the same email waits
 * for the other transaction and then does nothing), and the workspace only when it did. False
 * when the email is taken. Never raises a unique violation, so a caller's transaction stays usable.
 */
export async function workspacesInsertWithOwner(sql: SqlClient, p: { workspace: Workspace; owner: Person }): Promise<boolean> {
  const { workspace: w, owner: o } = p;
  const rows = await sql`
    with inserted_person as (
      insert into persons (workspace_id, id, email, password_hash, created_at)
      values (${w.id}, ${o.id}, ${o.email}, ${o.passwordHash}, ${o.createdAt})
      on conflict (email) do nothing
      returning id
    )
    insert into workspaces (id, name, owner_person_id, state, max_deliveries, created_at)
    select ${w.id}, ${w.name}, inserted_person.id, ${w.state}, ${w.maxDeliveries}, ${w.createdAt}
    from inserted_person
    returning id`;
  return rows.length === 1;
}

/** The workspace, or null. */
export async function workspacesFindById(sql: SqlClient, p: { workspaceId: string }): Promise<Workspace | null> {
  const [row] = await sql<WorkspaceRow[]>`select id, name, state, max_deliveries, created_at from workspaces where id = ${p.workspaceId}`;
  return row ? toWorkspace(row) : null;
}

/** Sets the state; the updated workspace, or null. */
export async function workspacesSetState(sql: SqlClient, p: { workspaceId: string; state: WorkspaceState }): Promise<Workspace | null> {
  const [row] = await sql<WorkspaceRow[]>`
    update workspaces set state = ${p.state} where id = ${p.workspaceId}
    returning id, name, state, max_deliveries, created_at`;
  return row ? toWorkspace(row) : null;
}

/** The workspace's owner person, or null. */
export async function personsFindOwner(sql: SqlClient, p: { workspaceId: string }): Promise<Person | null> {
  const [row] = await sql<PersonRow[]>`
    select p.id, p.workspace_id, p.email, p.password_hash, p.created_at
    from workspaces w join persons p on p.workspace_id = w.id and p.id = w.owner_person_id
    where w.id = ${p.workspaceId}`;
  return row ? toPerson(row) : null;
}

export { toWorkspace };
export type { WorkspaceRow };
