import type postgres from "postgres";
import type { SqlClient } from "../sql-client.ts";

/** `v` as a jsonb parameter. */
export const json = (sql: SqlClient, v: unknown) => sql.json(v as postgres.JSONValue);

/** A record as a jsonb document: its JSON form (dates as ISO strings, undefined fields left out). */
export const docOf = (sql: SqlClient, record: object) => json(sql, JSON.parse(JSON.stringify(record)));
