import type { Person, PersonToken, PersonTokenStore, Role, WorkspacePeopleStore } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import { inTransaction, queryStore } from "./pg-query-store.ts";
import * as q from "./queries/person-admin.ts";
import type { Pool, SqlClient } from "./sql-client.ts";

/** PersonTokenStore on PostgreSQL. */
export class PgPersonTokenStore extends queryStore({
  insert: q.personTokensInsert, findByHash: q.personTokensFindByHash, countIssuedSince: q.personTokensCountIssuedSince,
  spendAllOfPerson: q.personTokensSpendAllOfPerson, purgeExpiredBefore: q.personTokensPurgeExpiredBefore,
}) implements PersonTokenStore {
  spend(p: { tokenHash: string; now: Date }): Promise<{ kind: "spent"; token: PersonToken } | { kind: "unusable" }> {
    return withPgErrors(async () => {
      const token = await q.personTokensSpend(this.sql, p);
      return token === null ? { kind: "unusable" } : { kind: "spent", token };
    });
  }
}

/**
 * WorkspacePeopleStore on PostgreSQL. setRole and remove lock the workspace row first, so they
 * must run inside a transaction (TxRunner); on the pool each runs as its own transaction.
 */
export class PgWorkspacePeopleStore implements WorkspacePeopleStore {
  constructor(
    private readonly sql: SqlClient,
    /** The pool when this store is bound to it (each locking call then runs in a transaction of its own); null inside a transaction. */
    private readonly pool: Pool | null,
  ) {}
  list(p: { workspaceId: string }): Promise<Person[]> {
    return withPgErrors(() => q.workspacePeopleList(this.sql, p));
  }
  count(p: { workspaceId: string }): Promise<number> {
    return withPgErrors(() => q.workspacePeopleCount(this.sql, p));
  }
  setRole(p: { workspaceId: string; personId: string; role: Role }): Promise<{ kind: "changed"; before: Person; person: Person } | { kind: "last_owner" } | { kind: "not_found" }> {
    return withPgErrors(() => inTransaction(this.sql, this.pool, (sql) => q.workspacePeopleSetRole(sql, p)));
  }
  remove(p: { workspaceId: string; personId: string }): Promise<{ kind: "removed"; person: Person } | { kind: "last_owner" } | { kind: "not_found" }> {
    return withPgErrors(() => inTransaction(this.sql, this.pool, (sql) => q.workspacePeopleRemove(sql, p)));
  }
  erase(p: { workspaceId: string; personId: string }): Promise<{ kind: "erased"; person: Person; wasLastOwner: boolean } | { kind: "not_found" }> {
    return withPgErrors(() => inTransaction(this.sql, this.pool, (sql) => q.workspacePeopleErase(sql, p)));
  }
}
