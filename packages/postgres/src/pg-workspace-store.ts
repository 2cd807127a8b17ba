import type { Person, Workspace, WorkspaceStore } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import { queryStore } from "./pg-query-store.ts";
import { personsFindOwner, workspacesFindById, workspacesInsertWithOwner, workspacesSetState } from "./queries/workspaces.ts";

/** WorkspaceStore on PostgreSQL, bound to a pool or to one transaction. */
export class PgWorkspaceStore extends queryStore({ findById: workspacesFindById, setState: workspacesSetState, findOwner: personsFindOwner }) implements WorkspaceStore {
  create(p: { workspace: Workspace; owner: Person }): Promise<{ kind: "created" } | { kind: "email_taken" }> {
    return withPgErrors(async () => ((await workspacesInsertWithOwner(this.sql, p)) ? { kind: "created" } : { kind: "email_taken" }));
  }
}
