import type { Workspace, WorkspaceLifecycleStore } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import { inTransaction } from "./pg-query-store.ts";
import * as q from "./queries/workspace-lifecycle.ts";
import type { Pool, SqlClient } from "./sql-client.ts";

/** WorkspaceLifecycleStore on PostgreSQL (close and freeze lock the workspace row; bound to the pool, each runs in a transaction of its own). */
export class PgWorkspaceLifecycleStore implements WorkspaceLifecycleStore {
  constructor(
    private readonly sql: SqlClient,
    private readonly pool: Pool | null,
  ) {}
  close(p: { workspaceId: string; now: Date }): Promise<{ kind: "closed"; workspace: Workspace; accountIds: string[]; credentialIds: string[] } | { kind: "already_closed"; workspace: Workspace } | { kind: "not_found" }> {
    return withPgErrors(() => inTransaction(this.sql, this.pool, (sql) => q.workspaceClose(sql, p)));
  }
  freezeAndRevoke(p: { workspaceId: string; now: Date }): Promise<{ workspace: Workspace; accountIds: string[]; credentialIds: string[] } | null> {
    return withPgErrors(() => inTransaction(this.sql, this.pool, (sql) => q.workspaceFreezeAndRevoke(sql, p)));
  }
  dueForPayloadDeletion(p: { closedBefore: Date; limit: number }): Promise<string[]> {
    return withPgErrors(() => q.workspacesDueForPayloadDeletion(this.sql, p));
  }
  deletePayloads(p: { workspaceId: string; now: Date; limit: number }): Promise<{ deleted: number; done: boolean }> {
    return withPgErrors(() => q.workspaceDeletePayloads(this.sql, p));
  }
}
