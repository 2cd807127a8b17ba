import type { Person, Workspace, WorkspaceState, WorkspaceStore } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import { personsFindOwner, workspacesFindById, workspacesInsertWithOwner, workspacesSetState } from "./queries/workspaces.ts";
import type { SqlClient } from "./sql-client.ts";

/** WorkspaceStore on PostgreSQL, bound to a pool or to one transaction. */
export class PgWorkspaceStore implements WorkspaceStore {
  constructor(private readonly sql: SqlClient) {}

  create(p: { workspace: Workspace; owner: Person }): Promise<{ kind: "created" } | { kind: "email_taken" }> {
    return withPgErrors(async () => ((await workspacesInsertWithOwner(this.sql, p)) ? { kind: "created" } : { kind: "email_taken" }));
  }

  findById(p: { workspaceId: string }): Promise<Workspace | null> {
    return withPgErrors(() => workspacesFindById(this.sql, p));
  }

  setState(p: { workspaceId: string; state: WorkspaceState }): Promise<Workspace | null> {
    return withPgErrors(() => workspacesSetState(this.sql, p));
  }

  findOwner(p: { workspaceId: string }): Promise<Person | null> {
    return withPgErrors(() => personsFindOwner(this.sql, p));
  }
}
