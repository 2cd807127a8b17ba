import type { IdempotencyRecord } from "@agentq/core";
import type { SqlClient } from "../sql-client.ts";

interface IdempotencyRow {
  workspace_id: string;
  account_id: string;
  key: string;
  fingerprint: string;
  request_id: string;
  status: number | null;
  body_text: string | null;
  created_at: Date;
  expires_at: Date;
}

function toRecord(r: IdempotencyRow): IdempotencyRecord {
  return {
    workspaceId: r.workspace_id,
    accountId: r.account_id,
    key: r.key,
    fingerprint: r.fingerprint,
    requestId: r.request_id,
    status: r.status,
    bodyText: r.body_text,
    createdAt: r.created_at,
    expiresAt: r.expires_at,
  };
}

/** The unexpired record of the key (by the database clock), or null. */
export async function idempotencyKeysFind(sql: SqlClient, p: { workspaceId: string; accountId: string; key: string }): Promise<IdempotencyRecord | null> {
  const [row] = await sql<IdempotencyRow[]>`
    select * from idempotency_keys
    where workspace_id = ${p.workspaceId} and account_id = ${p.accountId} and key = ${p.key} and expires_at > now()`;
  return row ? toRecord(row) : null;
}

/**
 * Inserts the record unless an unexpired one holds the key (an expired one is replaced in
 * place). Locks: the key's row, by the insert or by `ON CONFLICT`; a concurrent claim of the same
 * key blocks on it until this transaction ends, then does nothing (committed) or inserts (rolled
 * back). Never raises a unique violation, so the caller's transaction stays usable. True when
 * this call stored the record.
 */
export async function idempotencyKeysInsert(sql: SqlClient, p: { record: IdempotencyRecord }): Promise<boolean> {
  const r = p.record;
  const rows = await sql`
    insert into idempotency_keys (workspace_id, account_id, key, fingerprint, request_id, status, body_text, created_at, expires_at)
    values (${r.workspaceId}, ${r.accountId}, ${r.key}, ${r.fingerprint}, ${r.requestId}, ${r.status}, ${r.bodyText}, ${r.createdAt}, ${r.expiresAt})
    on conflict (workspace_id, account_id, key) do update
      set fingerprint = excluded.fingerprint, request_id = excluded.request_id, status = excluded.status, body_text = excluded.body_text,
          created_at = excluded.created_at, expires_at = excluded.expires_at
      where idempotency_keys.expires_at <= now()
    returning 1`;
  return rows.length === 1;
}

/** Stores the response of a claimed key. */
export async function idempotencyKeysComplete(sql: SqlClient, p: { workspaceId: string; accountId: string; key: string; status: number; bodyText: string }): Promise<void> {
  await sql`
    update idempotency_keys set status = ${p.status}, body_text = ${p.bodyText}
    where workspace_id = ${p.workspaceId} and account_id = ${p.accountId} and key = ${p.key}`;
}

/**
 * Deletes up to `limit` records that expired before `now`, any workspace (the background purge).
 * Locks: `FOR UPDATE SKIP LOCKED`, so it never waits on a request holding a key.
 */
export async function idempotencyKeysPurgeExpired(sql: SqlClient, p: { now: Date; limit: number }): Promise<number> {
  const [row] = await sql<{ count: number }[]>`
    with doomed as (
      select workspace_id, account_id, key from idempotency_keys
      where expires_at < ${p.now}
      limit ${p.limit}
      for update skip locked
    ),
    deleted as (
      delete from idempotency_keys k using doomed
      where k.workspace_id = doomed.workspace_id and k.account_id = doomed.account_id and k.key = doomed.key
      returning 1
    )
    select count(*)::int as count from deleted`;
  return row?.count ?? 0;
}

/** The record of the key whatever its expiry, or null: the rare second read of a send whose key conflicted. */
export async function idempotencyKeysFindAny(sql: SqlClient, p: { workspaceId: string; accountId: string; key: string }): Promise<IdempotencyRecord | null> {
  const [row] = await sql<IdempotencyRow[]>`
    select * from idempotency_keys where workspace_id = ${p.workspaceId} and account_id = ${p.accountId} and key = ${p.key}`;
  return row ? toRecord(row) : null;
}
