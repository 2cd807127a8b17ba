import type { Person, Workspace, WorkspaceState } from "@agentq/core";
import type { SqlClient } from "../sql-client.ts";

interface WorkspaceRow {
  id: string;
  name: string;
  state: WorkspaceState;
  max_deliveries: number;
  created_at: Date;
  closed_at?: Date | null;
}

interface PersonRow {
  id: string;
  workspace_id: string;
  email: string;
  display_name: string | null;
  role: Person["role"];
  password_hash: string | null;
  mfa_enabled_at: Date | null;
  created_at: Date;
}

/** The columns of a Person, for `select ${PERSON_COLUMNS}` (prefix them with the table alias where needed). */
const PERSON_COLUMN_NAMES = ["id", "workspace_id", "email", "display_name", "role", "password_hash", "mfa_enabled_at", "created_at"] as const;

function toWorkspace(r: WorkspaceRow): Workspace {
  return { id: r.id, name: r.name, state: r.state, maxDeliveries: r.max_deliveries, createdAt: r.created_at, ...(r.closed_at == null ? {} : { closedAt: r.closed_at }) };
}

function toPerson(r: PersonRow): Person {
  return { id: r.id, workspaceId: r.workspace_id, email: r.email, displayName: r.display_name, role: r.role, passwordHash: r.password_hash, mfaEnabledAt: r.mfa_enabled_at, createdAt: r.created_at };
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
      insert into persons (workspace_id, id, email, display_name, role, password_hash, mfa_enabled_at, created_at)
      values (${w.id}, ${o.id}, ${o.email}, ${o.displayName}, ${o.role}, ${o.passwordHash}, ${o.mfaEnabledAt}, ${o.createdAt})
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
  const [row] = await sql<WorkspaceRow[]>`select id, name, state, max_deliveries, created_at, closed_at from workspaces where id = ${p.workspaceId}`;
  return row ? toWorkspace(row) : null;
}

/** Sets the state; the updated workspace, or null. */
export async function workspacesSetState(sql: SqlClient, p: { workspaceId: string; state: WorkspaceState }): Promise<Workspace | null> {
  const [row] = await sql<WorkspaceRow[]>`
    update workspaces set state = ${p.state} where id = ${p.workspaceId}
    returning id, name, state, max_deliveries, created_at, closed_at`;
  return row ? toWorkspace(row) : null;
}

/** The workspace's owner person, or null. */
export async function personsFindOwner(sql: SqlClient, p: { workspaceId: string }): Promise<Person | null> {
  const [row] = await sql<PersonRow[]>`
    select p.id, p.workspace_id, p.email, p.display_name, p.role, p.password_hash, p.mfa_enabled_at, p.created_at
    from workspaces w join persons p on p.workspace_id = w.id and p.id = w.owner_person_id
    where w.id = ${p.workspaceId}`;
  return row ? toPerson(row) : null;
}

export { toWorkspace, toPerson, PERSON_COLUMN_NAMES };
export type { WorkspaceRow, PersonRow };
