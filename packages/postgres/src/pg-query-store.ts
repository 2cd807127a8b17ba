import { withPgErrors } from "./pg-errors.ts";
import type { Pool, SqlClient } from "./sql-client.ts";

/** A query of `queries/`: a function of the client and its parameters. */
type Query = (sql: SqlClient, ...params: never[]) => Promise<unknown>;

/** The store methods of some queries: each takes the query's parameters but the client. */
export type BoundQueries<Q extends Record<string, Query>> = {
  [K in keyof Q]: Q[K] extends (sql: SqlClient, ...params: infer P) => Promise<infer R> ? (...params: P) => Promise<R> : never;
};

/**
 * The base class of a store whose methods run a query each: `new Store(sql)` has one method per
 * entry of `queries`, which runs that query on `sql` with PostgreSQL's errors translated
 * (`withPgErrors`). A store that does more states those methods in its own class body, where
 * `this.sql` is the client.
 */
export function queryStore<Q extends Record<string, Query>>(queries: Q): new (sql: SqlClient) => BoundQueries<Q> & { readonly sql: SqlClient } {
  class QueryStore {
    constructor(readonly sql: SqlClient) {}
  }
  for (const [name, query] of Object.entries(queries)) {
    Object.defineProperty(QueryStore.prototype, name, {
      value: function (this: QueryStore, ...params: never[]) {
        return withPgErrors(() => query(this.sql, ...params));
      },
      writable: true,
      configurable: true,
    });
  }
  return QueryStore as new (sql: SqlClient) => BoundQueries<Q> & { readonly sql: SqlClient };
}

/**
 * Runs `fn` in a transaction of its own when a store is bound to the pool (`pool` given), or on
 * `sql` when that is a transaction already (`pool` null): for queries that lock a row first.
 */
export async function inTransaction<T>(sql: SqlClient, pool: Pool | null, fn: (sql: SqlClient) => Promise<T>): Promise<T> {
  return pool === null ? fn(sql) : ((await pool.begin((tx) => fn(tx))) as T);
}
