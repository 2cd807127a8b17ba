import type postgres from "postgres";
import type { SqlClient } from "../sql-client.ts";

/** Thrown inside `atomically` to undo its statements and have it answer `conflict`. */
export class UndoAndConflict extends Error {
  constructor() {
    super("undo");
  }
}

/**
 * Runs `fn` as one unit: in a savepoint when `sql` is a transaction, else in a new transaction.
 * `fn` throwing UndoAndConflict undoes its statements (only them) and answers `{kind: "conflict"}`.
 */
export async function atomically<T>(sql: SqlClient, fn: (tx: SqlClient) => Promise<T>): Promise<T | { kind: "conflict" }> {
  try {
    if ("savepoint" in sql) return (await (sql as postgres.TransactionSql).savepoint((tx) => fn(tx))) as T;
    return (await (sql as postgres.Sql).begin((tx) => fn(tx))) as T;
  } catch (e) {
    if (e instanceof UndoAndConflict) return { kind: "conflict" };
    throw e;
  }
}
