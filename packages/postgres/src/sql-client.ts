import type postgres from "postgres";

/**
 * What a query runs on: the pool (each statement on any connection, auto-committed) or one
 * transaction (`sql.begin`'s handle). Queries take it as their first argument so the same
 * function serves both.
 */
export type SqlClient = postgres.Sql | postgres.TransactionSql;

/** The root pool of a client: transaction handles and pools are both callable the same way. */
export type Pool = postgres.Sql;
