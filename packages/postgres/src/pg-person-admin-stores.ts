import type { Person, PersonToken, PersonTokenPurpose, PersonTokenStore, Role, WorkspacePeopleStore } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import * as q from "./queries/person-admin.ts";
import type { Pool, SqlClient } from "./sql-client.ts";

/** PersonTokenStore on PostgreSQL. */
export class PgPersonTokenStore implements PersonTokenStore {
  constructor(private readonly sql: SqlClient) {}
  insert(p: { token: PersonToken }): Promise<void> {
    return withPgErrors(() => q.personTokensInsert(this.sql, p));
  }
  findByHash(p: { tokenHash: string }): Promise<PersonToken | null> {
    return withPgErrors(() => q.personTokensFindByHash(this.sql, p));
  }
  spend(p: { tokenHash: string; now: Date }): Promise<{ kind: "spent"; token: PersonToken } | { kind: "unusable" }> {
    return withPgErrors(async () => {
      const token = await q.personTokensSpend(this.sql, p);
      return token === null ? { kind: "unusable" } : { kind: "spent", token };
    });
  }
  countIssuedSince(p: { workspaceId: string; personId: string; purpose: PersonTokenPurpose; since: Date }): Promise<number> {
    return withPgErrors(() => q.personTokensCountIssuedSince(this.sql, p));
  }
  spendAllOfPerson(p: { workspaceId: string; personId: string; now: Date }): Promise<number> {
    return withPgErrors(() => q.personTokensSpendAllOfPerson(this.sql, p));
  }
  purgeExpiredBefore(p: { before: Date }): Promise<number> {
    return withPgErrors(() => q.personTokensPurgeExpiredBefore(this.sql, p));
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
  private async inTx<T>(fn: (sql: SqlClient) => Promise<T>): Promise<T> {
    return this.pool === null ? fn(this.sql) : ((await this.pool.begin((tx) => fn(tx))) as T);
  }
  list(p: { workspaceId: string }): Promise<Person[]> {
    return withPgErrors(() => q.workspacePeopleList(this.sql, p));
  }
  count(p: { workspaceId: string }): Promise<number> {
    return withPgErrors(() => q.workspacePeopleCount(this.sql, p));
  }
  setRole(p: { workspaceId: string; personId: string; role: Role }): Promise<{ kind: "changed"; before: Person; person: Person } | { kind: "last_owner" } | { kind: "not_found" }> {
    return withPgErrors(() => this.inTx((sql) => q.workspacePeopleSetRole(sql, p)));
  }
  remove(p: { workspaceId: string; personId: string }): Promise<{ kind: "removed"; person: Person } | { kind: "last_owner" } | { kind: "not_found" }> {
    return withPgErrors(() => this.inTx((sql) => q.workspacePeopleRemove(sql, p)));
  }
  erase(p: { workspaceId: string; personId: string }): Promise<{ kind: "erased"; person: Person; wasLastOwner: boolean } | { kind: "not_found" }> {
    return withPgErrors(() => this.inTx((sql) => q.workspacePeopleErase(sql, p)));
  }
}
