import type { AuditEntry, NewAuditEntry } from "@agentq/core";
import type postgres from "postgres";
import type { SqlClient } from "../sql-client.ts";

interface AuditRow {
  workspace_id: string;
  id: string;
  occurred_at: Date;
  activity: string;
  actor_account_id: string | null;
  actor_credential_id: string | null;
  subject_type: string;
  subject_id: string;
  message_id: string | null;
  details: Record<string, unknown>;
  operator_significant: boolean;
  request_id: string | null;
  seq: string | null;
  prev_hash: string | null;
  hash: string | null;
  sealed_at: Date | null;
}

function toEntry(r: AuditRow): AuditEntry {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    occurredAt: r.occurred_at,
    activity: r.activity,
    actorAccountId: r.actor_account_id,
    actorCredentialId: r.actor_credential_id,
    subjectType: r.subject_type,
    subjectId: r.subject_id,
    messageId: r.message_id,
    details: r.details,
    operatorSignificant: r.operator_significant,
    requestId: r.request_id,
    seq: r.seq === null ? null : Number(r.seq),
    prevHash: r.prev_hash,
    hash: r.hash,
    sealedAt: r.sealed_at,
  };
}

/** Inserts an unsealed row. */
export async function auditLogInsert(sql: SqlClient, p: { entry: NewAuditEntry }): Promise<void> {
  const a = p.entry;
  await sql`
    insert into audit_log (workspace_id, id, occurred_at, activity, actor_account_id, actor_credential_id, subject_type, subject_id, message_id, details, operator_significant, request_id)
    values (${a.workspaceId}, ${a.id}, ${a.occurredAt}, ${a.activity}, ${a.actorAccountId}, ${a.actorCredentialId}, ${a.subjectType}, ${a.subjectId}, ${a.messageId},
            ${sql.json(a.details as postgres.JSONValue)}::jsonb, ${a.operatorSignificant}, ${a.requestId})`;
}

/** A page of the workspace's rows, newest first (occurred_at, id descending), after the keyset position; at most `limit + 1`. */
export async function auditLogList(sql: SqlClient, p: { workspaceId: string; activity: string | null; messageId: string | null; includeOperatorSignificant: boolean; after: { occurredAt: Date; id: string } | null; limit: number }): Promise<AuditEntry[]> {
  const rows = await sql<AuditRow[]>`
    select * from audit_log
    where workspace_id = ${p.workspaceId}
      and (${p.activity}::text is null or activity = ${p.activity})
      and (${p.messageId}::text is null or message_id = ${p.messageId})
      and (${p.includeOperatorSignificant}::boolean or not operator_significant)
      and (${p.after === null}::boolean or (occurred_at, id) < (${p.after?.occurredAt ?? null}::timestamptz, ${p.after?.id ?? null}::text))
    order by occurred_at desc nulls last, id desc nulls last
    limit ${p.limit + 1}`;
  return rows.map(toEntry);
}

/** Every row about one message, oldest first. */
export async function auditLogTimeline(sql: SqlClient, p: { workspaceId: string; messageId: string }): Promise<AuditEntry[]> {
  const rows = await sql<AuditRow[]>`
    select * from audit_log where workspace_id = ${p.workspaceId} and message_id = ${p.messageId}
    order by occurred_at, id`;
  return rows.map(toEntry);
}

/** Sealed rows with seq > afterSeq, in seq order, at most `limit`. */
export async function auditLogReadChain(sql: SqlClient, p: { workspaceId: string; afterSeq: number; limit: number }): Promise<AuditEntry[]> {
  const rows = await sql<AuditRow[]>`
    select * from audit_log where workspace_id = ${p.workspaceId} and seq > ${p.afterSeq}
    order by seq
    limit ${p.limit}`;
  return rows.map(toEntry);
}

/** Workspaces that have unsealed rows, at most `limit`. */
export async function auditLogWorkspacesWithUnsealed(sql: SqlClient, p: { limit: number }): Promise<string[]> {
  const rows = await sql<{ workspace_id: string }[]>`
    select distinct workspace_id from audit_log where seq is null limit ${p.limit}`;
  return rows.map((r) => r.workspace_id);
}

/**
 * Takes the workspace's seal lock for the rest of the transaction, without waiting: a
 * transaction-scoped advisory lock keyed by the workspace id (`pg_try_advisory_xact_lock`), so
 * one sealer per workspace runs at a time and sends never touch it. True when taken.
 */
export async function auditLogTrySealLock(sql: postgres.TransactionSql, p: { workspaceId: string }): Promise<boolean> {
  const [row] = await sql<{ locked: boolean }[]>`
    select pg_try_advisory_xact_lock(hashtextextended(${"agentq.audit.seal:" + p.workspaceId}, 0)) as locked`;
  return row?.locked === true;
}

/** The last sealed row's seq and hash, or null. */
export async function auditLogSealHead(sql: SqlClient, p: { workspaceId: string }): Promise<{ seq: number; hash: string } | null> {
  const [row] = await sql<{ seq: string; hash: string }[]>`
    select seq, hash from audit_log where workspace_id = ${p.workspaceId} and seq is not null
    order by seq desc
    limit 1`;
  return row ? { seq: Number(row.seq), hash: row.hash } : null;
}

/** Up to `limit` unsealed rows of the workspace in seal order (occurred_at, id), over the partial unsealed index. */
export async function auditLogUnsealed(sql: SqlClient, p: { workspaceId: string; limit: number }): Promise<AuditEntry[]> {
  const rows = await sql<AuditRow[]>`
    select * from audit_log where workspace_id = ${p.workspaceId} and seq is null
    order by occurred_at, id
    limit ${p.limit}`;
  return rows.map(toEntry);
}

/**
 * Writes the seals of the given rows in one statement. Runs under the workspace's seal lock, so
 * no other sealer writes concurrently; `seq is null` keeps a row from being sealed twice.
 */
export async function auditLogWriteSeals(sql: SqlClient, p: { workspaceId: string; seals: readonly { id: string; seq: number; prevHash: string; hash: string }[]; sealedAt: Date }): Promise<void> {
  if (p.seals.length === 0) return;
  await sql`
    update audit_log a
    set seq = s.seq, prev_hash = s.prev_hash, hash = s.hash, sealed_at = ${p.sealedAt}
    from unnest(${p.seals.map((s) => s.id)}::text[], ${p.seals.map((s) => s.seq)}::int8[], ${p.seals.map((s) => s.prevHash)}::text[], ${p.seals.map((s) => s.hash)}::text[])
      as s(id, seq, prev_hash, hash)
    where a.workspace_id = ${p.workspaceId} and a.id = s.id and a.seq is null`;
}
