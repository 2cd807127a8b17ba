import type { ClaimedDelivery, DeliveryRecord, DeliveryState } from "../core-types.ts";
import type { SqlClient } from "../sql-client.ts";
import { toSigningKeys } from "./webhook-signing-keys.ts";

/** A webhook_outbox row as selected. */
export interface OutboxRow {
  workspace_id: string;
  id: string;
  webhook_id: string;
  message_id: string | null;
  event_type: string;
  payload: unknown;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: Date;
  created_at: Date;
  last_attempt_at: Date | null;
  last_status: number | null;
  last_error: string | null;
  delivered_at: Date | null;
  dead_at: Date | null;
  traceparent: string | null;
}

/** A delivery record from its row. */
export function toDelivery(r: OutboxRow): DeliveryRecord {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    webhookId: r.webhook_id,
    messageId: r.message_id,
    eventType: r.event_type,
    payload: r.payload,
    state: r.state,
    attempts: r.attempts,
    nextAttemptAt: r.next_attempt_at,
    createdAt: r.created_at,
    lastAttemptAt: r.last_attempt_at,
    lastStatus: r.last_status,
    lastError: r.last_error,
    deliveredAt: r.delivered_at,
    deadAt: r.dead_at,
    traceparent: r.traceparent,
  };
}

const DELIVERY_COLUMNS = (sql: SqlClient, alias: string) =>
  sql`${sql(alias)}.workspace_id, ${sql(alias)}.id, ${sql(alias)}.webhook_id, ${sql(alias)}.message_id, ${sql(alias)}.event_type, ${sql(alias)}.payload, ${sql(alias)}.state,
      ${sql(alias)}.attempts, ${sql(alias)}.next_attempt_at, ${sql(alias)}.created_at, ${sql(alias)}.last_attempt_at, ${sql(alias)}.last_status, ${sql(alias)}.last_error,
      ${sql(alias)}.delivered_at, ${sql(alias)}.dead_at, ${sql(alias)}.traceparent`;

/** A page of the webhook's deliveries, newest first, optionally of one state; at most `limit + 1`. */
export async function webhookOutboxListDeliveries(sql: SqlClient, p: { workspaceId: string; webhookId: string; state: DeliveryState | null; after: string | null; limit: number }): Promise<DeliveryRecord[]> {
  const rows = await sql<OutboxRow[]>`
    select * from webhook_outbox
    where workspace_id = ${p.workspaceId} and webhook_id = ${p.webhookId}
      and (${p.state}::text is null or state = ${p.state})
      and (${p.after}::text is null or id < ${p.after})
    order by id desc
    limit ${p.limit + 1}`;
  return rows.map(toDelivery);
}

/**
 * Claims up to `max` due deliveries of live webhooks, any workspace (the dispatcher's queue),
 * oldest due first, in ONE statement. Locks: `FOR UPDATE OF o SKIP LOCKED` over the partial due
 * index, so concurrent dispatchers take disjoint rows and never wait; each taken row's
 * `next_attempt_at` moves to now + lease, so no dispatcher takes it again until the lease runs
 * out (a crashed dispatcher's rows come back by themselves). Database clock.
 */
export async function webhookOutboxClaimDue(sql: SqlClient, p: { max: number; leaseMs: number; claimToken: string }): Promise<ClaimedDelivery[]> {
  if (p.max <= 0) return [];
  const rows = await sql<(OutboxRow & { url: string; max_attempts: number; signing_keys: Parameters<typeof toSigningKeys>[0]; due_at: Date })[]>`
    with due as (
      select o.workspace_id, o.id, o.next_attempt_at as due_at
      from webhook_outbox o
      join webhooks w on w.workspace_id = o.workspace_id and w.id = o.webhook_id and w.deleted_at is null
      where o.state in ('pending', 'retrying') and o.next_attempt_at <= now()
      order by o.next_attempt_at, o.id
      limit ${p.max}
      for update of o skip locked
    ),
    claimed as (
      update webhook_outbox o
      set next_attempt_at = now() + (${p.leaseMs}::float8 * interval '1 millisecond'), claim_token = ${p.claimToken}
      from due
      where o.workspace_id = due.workspace_id and o.id = due.id
      returning ${DELIVERY_COLUMNS(sql, "o")}, due.due_at
    )
    select claimed.*, w.url, w.max_attempts, w.signing_keys
    from claimed join webhooks w on w.workspace_id = claimed.workspace_id and w.id = claimed.webhook_id
    order by claimed.due_at, claimed.id`;
  return rows.map((r) => ({ delivery: toDelivery(r), url: r.url, maxAttempts: r.max_attempts, signingKeys: toSigningKeys(r.signing_keys) }));
}

/** Marks a claimed delivery delivered, guarded by the claim token; false when the claim was lost. */
export async function webhookOutboxRecordSuccess(sql: SqlClient, p: { workspaceId: string; deliveryId: string; claimToken: string; status: number }): Promise<boolean> {
  const rows = await sql`
    update webhook_outbox
    set state = 'delivered', attempts = attempts + 1, last_attempt_at = now(), last_status = ${p.status}, delivered_at = now(), claim_token = null
    where workspace_id = ${p.workspaceId} and id = ${p.deliveryId} and claim_token = ${p.claimToken} and state in ('pending', 'retrying')
    returning id`;
  return rows.length === 1;
}

/** Records a failed attempt of a claimed delivery (retrying later, or dead), guarded by the claim token; null when the claim was lost. */
export async function webhookOutboxRecordFailure(sql: SqlClient, p: { workspaceId: string; deliveryId: string; claimToken: string; status: number | null; error: string; retryInMs: number | null }): Promise<DeliveryRecord | null> {
  const dead = p.retryInMs === null;
  const [row] = await sql<OutboxRow[]>`
    update webhook_outbox
    set state = case when ${dead}::boolean then 'dead' else 'retrying' end,
        attempts = attempts + 1, last_attempt_at = now(), last_status = ${p.status}::smallint, last_error = ${p.error},
        next_attempt_at = case when ${dead}::boolean then next_attempt_at else now() + (${p.retryInMs ?? 0}::float8 * interval '1 millisecond') end,
        dead_at = case when ${dead}::boolean then now() else null end,
        claim_token = null
    where workspace_id = ${p.workspaceId} and id = ${p.deliveryId} and claim_token = ${p.claimToken} and state in ('pending', 'retrying')
    returning *`;
  return row ? toDelivery(row) : null;
}


/**
 * Deletes up to `limit` delivered or dead deliveries, any workspace, that finished (delivered_at,
 * dead_at) before `finishedBefore`: the retention purge. Walks the partial index
 * `webhook_outbox_finished_idx`; rows are picked with SKIP LOCKED so concurrent purgers (one per
 * process) never wait on each other.
 */
export async function webhookOutboxPurgeFinished(sql: SqlClient, p: { finishedBefore: Date; limit: number }): Promise<number> {
  const rows = await sql`
    with old as (
      select workspace_id, id from webhook_outbox
      where state in ('delivered', 'dead') and coalesce(delivered_at, dead_at) < ${p.finishedBefore}
      order by coalesce(delivered_at, dead_at)
      limit ${p.limit}
      for update skip locked
    )
    delete from webhook_outbox o using old
    where o.workspace_id = old.workspace_id and o.id = old.id
    returning 1`;
  return rows.length;
}
