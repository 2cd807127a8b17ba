import type { AuditChainLink, AuditEntry, NewAuditEntry } from "@agentq/core";
import type postgres from "postgres";
import type { SqlClient } from "../sql-client.ts";
import { json } from "./json.ts";

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

/** Inserts a row (the trigger on audit_log queues it for the sealer). */
export async function auditLogInsert(sql: SqlClient, p: { entry: NewAuditEntry }): Promise<void> {
  const a = p.entry;
  await sql`
    insert into audit_log (workspace_id, id, occurred_at, activity, actor_account_id, actor_credential_id, subject_type, subject_id, message_id, details, operator_significant, request_id)
    values (${a.workspaceId}, ${a.id}, ${a.occurredAt}, ${a.activity}, ${a.actorAccountId}, ${a.actorCredentialId}, ${a.subjectType}, ${a.subjectId}, ${a.messageId},
            ${json(sql, a.details)}::jsonb, ${a.operatorSignificant}, ${a.requestId})`;
}

/** The columns of an audit row with its chain link's (`c`), for reads that join the two. */
function withLinkColumns(sql: SqlClient) {
  return sql`a.*, c.seq, c.prev_hash, c.hash, c.sealed_at`;
}

/** A page of the workspace's rows, newest first (occurred_at, id descending), after the keyset position; at most `limit + 1`; each with its link, if sealed. */
export async function auditLogList(sql: SqlClient, p: { workspaceId: string; activity: string | null; activityContains?: string | null; messageId: string | null; includeOperatorSignificant: boolean; after: { occurredAt: Date; id: string } | null; limit: number }): Promise<AuditEntry[]> {
  const rows = await sql<AuditRow[]>`
    select ${withLinkColumns(sql)} from audit_log a
    left join audit_chain c on c.workspace_id = a.workspace_id and c.audit_id = a.id
    where a.workspace_id = ${p.workspaceId}
      and (${p.activity}::text is null or a.activity = ${p.activity})
      and (${p.activityContains ?? null}::text is null or strpos(a.activity, ${p.activityContains ?? null}) > 0)
      and (${p.messageId}::text is null or a.message_id = ${p.messageId})
      and (${p.includeOperatorSignificant}::boolean or not a.operator_significant)
      and (${p.after === null}::boolean or (a.occurred_at, a.id) < (${p.after?.occurredAt ?? null}::timestamptz, ${p.after?.id ?? null}::text))
    order by a.occurred_at desc nulls last, a.id desc nulls last
    limit ${p.limit + 1}`;
  return rows.map(toEntry);
}

/** Every row about one message, oldest first, each with its link, if sealed. */
export async function auditLogTimeline(sql: SqlClient, p: { workspaceId: string; messageId: string }): Promise<AuditEntry[]> {
  const rows = await sql<AuditRow[]>`
    select ${withLinkColumns(sql)} from audit_log a
    left join audit_chain c on c.workspace_id = a.workspace_id and c.audit_id = a.id
    where a.workspace_id = ${p.workspaceId} and a.message_id = ${p.messageId}
    order by a.occurred_at, a.id`;
  return rows.map(toEntry);
}

/**
 * Sealed rows with seq > afterSeq, in seq order, at most `limit`: the chain's links joined to
 * their rows. A link whose row was deleted is skipped (the verifier sees a gap in seq).
 */
export async function auditLogReadChain(sql: SqlClient, p: { workspaceId: string; afterSeq: number; limit: number }): Promise<AuditEntry[]> {
  const rows = await sql<AuditRow[]>`
    select ${withLinkColumns(sql)} from audit_chain c
    join audit_log a on a.workspace_id = c.workspace_id and a.id = c.audit_id
    where c.workspace_id = ${p.workspaceId} and c.seq > ${p.afterSeq}
    order by c.seq
    limit ${p.limit}`;
  return rows.map(toEntry);
}

/**
 * Workspaces the sealer has work in, at most `limit`: those with entries in the sealer's queue,
 * and those on the tree's backlog (chains sealed before migration 0019, usually none).
 */
export async function auditLogWorkspacesToSeal(sql: SqlClient, p: { limit: number }): Promise<string[]> {
  const rows = await sql<{ workspace_id: string }[]>`
    select workspace_id from (select distinct workspace_id from audit_unsealed) queued
    union
    select workspace_id from audit_tree_backlog
    limit ${p.limit}`;
  return rows.map((r) => r.workspace_id);
}

/** How many audit rows of the workspace are not linked into its chain yet (tests and harnesses). */
export async function auditLogCountUnsealed(sql: SqlClient, p: { workspaceId: string | null }): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from audit_unsealed where ${p.workspaceId}::text is null or workspace_id = ${p.workspaceId}`;
  return row?.n ?? 0;
}

/**
 * Takes the workspace's seal lock for the rest of the transaction, without waiting: a
 * transaction-scoped advisory lock keyed by the workspace id (`pg_try_advisory_xact_lock`), so
 * one sealer per workspace runs at a time and sends never touch it; in the same statement (one
 * round trip), makes the rest of the transaction plan with index scans only (sequential and
 * bitmap scans off, `set_config(..., true)`: this transaction alone), whether or not the lock was
 * taken. Returns whether it was, and the settings it replaced.
 *
 * Why index scans only: the sealer reads its queue in key order with a limit; trusting statistics
 * taken while the queue was empty, the planner read the whole queue and sorted it instead, once
 * per batch of 500 (docs/performance.md, the soak of 2026-11-24). Every statement of a seal has
 * an exact index path, so forbidding the others costs nothing.
 */
export async function auditLogTrySealLock(sql: postgres.TransactionSql, p: { workspaceId: string }): Promise<{ locked: boolean; replaced: PlannerSettings }> {
  const [row] = await sql<{ locked: boolean; seq: string; bitmap: string }[]>`
    select pg_try_advisory_xact_lock(hashtextextended(${"agentq.audit.seal:" + p.workspaceId}, 0)) as locked,
           current_setting('enable_seqscan') as seq, current_setting('enable_bitmapscan') as bitmap,
           set_config('enable_seqscan', 'off', true), set_config('enable_bitmapscan', 'off', true)`;
  return { locked: row?.locked === true, replaced: { enableSeqscan: row?.seq ?? "on", enableBitmapscan: row?.bitmap ?? "on" } };
}

/** Planner settings of a transaction: what `auditLogTrySealLock` changed, to put back. */
export interface PlannerSettings {
  enableSeqscan: string;
  enableBitmapscan: string;
}

/** Puts back the settings `auditLogTrySealLock` replaced (for a transaction that goes on). */
export async function auditLogRestorePlannerSettings(sql: postgres.TransactionSql, p: PlannerSettings): Promise<void> {
  await sql`select set_config('enable_seqscan', ${p.enableSeqscan}, true), set_config('enable_bitmapscan', ${p.enableBitmapscan}, true)`;
}

/**
 * Where sealing starts, in one statement: the chain's last link (seq and hash, or null) and the
 * size of the workspace's Merkle tree (its last leaf's index + 1, or 0), each a backward scan of
 * its key.
 */
export async function auditLogSealStart(sql: SqlClient, p: { workspaceId: string }): Promise<{ head: { seq: number; hash: string } | null; treeSize: number }> {
  const [row] = await sql<{ seq: string | null; hash: string | null; leaf_index: string | null }[]>`
    select c.seq, c.hash, t.leaf_index
    from (select 1) as one
    left join lateral (select seq, hash from audit_chain where workspace_id = ${p.workspaceId} order by seq desc limit 1) as c on true
    left join lateral (select leaf_index from audit_tree_hashes where workspace_id = ${p.workspaceId} order by leaf_index desc limit 1) as t on true`;
  const head = row?.seq == null || row.hash == null ? null : { seq: Number(row.seq), hash: row.hash };
  return { head, treeSize: row?.leaf_index == null ? 0 : Number(row.leaf_index) + 1 };
}

/**
 * Up to `limit` unsealed rows of the workspace in seal order (occurred_at, id), each with its
 * queue entry's ctid (`auditLogAppendLinks` deletes the entries by it). The queue's first
 * entries come from its key; each row is then fetched by its primary key in a lateral
 * subquery (its `limit 1` keeps the planner from merging it into a join), so the plan is a
 * nested loop of key lookups whatever the statistics say. With a free join the planner, trusting
 * statistics taken when the queue was small, hashed both tables and sorted them on disk: seconds
 * per batch while the queue grew (the soak of 2026-11-24, docs/performance.md).
 */
export async function auditLogUnsealed(sql: SqlClient, p: { workspaceId: string; limit: number; after: { occurredAt: Date; id: string } | null }): Promise<(AuditEntry & { queueCtid: string })[]> {
  // After the entries a transaction already took (and deleted: their index entries stay until
  // vacuum), start past them instead of stepping over them again in every batch.
  const after = p.after === null ? sql`` : sql`and (occurred_at, audit_id) > (${p.after.occurredAt}, ${p.after.id})`;
  const rows = await sql<(AuditRow & { queue_ctid: string })[]>`
    select a.*, null as seq, null as prev_hash, null as hash, null as sealed_at, u.queue_ctid
    from (
      select ctid::text as queue_ctid, workspace_id, occurred_at, audit_id from audit_unsealed
      where workspace_id = ${p.workspaceId} ${after}
      order by occurred_at, audit_id
      limit ${p.limit}
    ) u
    cross join lateral (
      select * from audit_log a where a.workspace_id = u.workspace_id and a.id = u.audit_id limit 1
    ) a
    order by u.occurred_at, u.audit_id`;
  return rows.map((r) => ({ ...toEntry(r), queueCtid: r.queue_ctid }));
}

/**
 * Appends the given links to the workspace's chain and takes their rows off the sealer's queue,
 * in one statement. Runs under the workspace's seal lock, so no other sealer appends or deletes
 * concurrently; the chain's keys (workspace, seq) and (workspace, audit id) refuse a seq or a
 * row linked twice. Audit rows are not touched. The queue's entries are deleted by the ctids
 * `auditLogUnsealed` read in the same transaction, their audit ids checked too: a TID scan is
 * the only path (no condition names the queue key's leading column, the workspace), so no
 * statistics can make it scan the workspace's queue, as a join once did per batch (8.2 s for
 * 500 of 228,000 entries) and a workspace condition did again while the statistics were stale.
 */
export async function auditLogAppendLinks(sql: SqlClient, p: { workspaceId: string; links: readonly AuditChainLink[]; queueCtids: readonly string[]; sealedAt: Date }): Promise<void> {
  if (p.links.length === 0) return;
  const ids = p.links.map((l) => l.auditId);
  await sql`
    with linked as (
      insert into audit_chain (workspace_id, seq, audit_id, prev_hash, hash, sealed_at)
      select ${p.workspaceId}, s.seq, s.audit_id, s.prev_hash, s.hash, ${p.sealedAt}
      from unnest(${ids}::text[], ${p.links.map((l) => l.seq)}::int8[], ${p.links.map((l) => l.prevHash)}::text[], ${p.links.map((l) => l.hash)}::text[])
        as s(audit_id, seq, prev_hash, hash)
    )
    delete from audit_unsealed u
    where u.ctid = any(${[...p.queueCtids]}::text[]::tid[]) and u.audit_id = any(${ids}::text[])`;
}
