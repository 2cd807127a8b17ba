import { PRIORITIES, PRIORITY_RANK, type Priority } from "@agentq/core";
import type { DeliveryState, SigningKey, WebhookFilter, WebhookRecord, WebhookStats } from "../core-types.ts";
import type { SqlClient } from "../sql-client.ts";
import { toDelivery, type OutboxRow } from "./webhook-outbox.ts";
import { storedKeys, toSigningKeys, type StoredSigningKey } from "./webhook-signing-keys.ts";
import { json } from "./json.ts";

interface WebhookRow {
  workspace_id: string;
  id: string;
  ai_account_id: string;
  url: string;
  name: string;
  filter_templates: string[] | null;
  filter_min_priority_rank: number | null;
  max_attempts: number;
  signing_keys: StoredSigningKey[];
  created_at: Date;
  updated_at: Date;
  deleted_at: Date | null;
}

function toWebhook(r: WebhookRow): WebhookRecord {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    aiAccountId: r.ai_account_id,
    url: r.url,
    name: r.name,
    filter: { templates: r.filter_templates, minPriority: r.filter_min_priority_rank === null ? null : (PRIORITIES[r.filter_min_priority_rank] as Priority) },
    maxAttempts: r.max_attempts,
    signingKeys: toSigningKeys(r.signing_keys),
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    deletedAt: r.deleted_at,
  };
}

function rankOf(filter: WebhookFilter): number | null {
  return filter.minPriority === null ? null : PRIORITY_RANK[filter.minPriority];
}

/** Inserts a webhook. */
export async function webhooksInsert(sql: SqlClient, p: { webhook: WebhookRecord }): Promise<void> {
  const w = p.webhook;
  await sql`
    insert into webhooks (workspace_id, id, ai_account_id, url, name, state, filter_templates, filter_min_priority_rank, max_attempts, signing_keys, created_at, updated_at, deleted_at)
    values (${w.workspaceId}, ${w.id}, ${w.aiAccountId}, ${w.url}, ${w.name}, 'active', ${w.filter.templates}::text[], ${rankOf(w.filter)}::smallint, ${w.maxAttempts},
            ${json(sql, storedKeys(w.signingKeys))}::jsonb, ${w.createdAt}, ${w.updatedAt}, ${w.deletedAt})`;
}

/** The webhook unless missing or deleted. */
export async function webhooksFindLive(sql: SqlClient, p: { workspaceId: string; webhookId: string }): Promise<WebhookRecord | null> {
  const [row] = await sql<WebhookRow[]>`select * from webhooks where workspace_id = ${p.workspaceId} and id = ${p.webhookId} and deleted_at is null`;
  return row ? toWebhook(row) : null;
}

/** A page of the workspace's live webhooks, oldest first; at most `limit + 1`. */
export async function webhooksList(sql: SqlClient, p: { workspaceId: string; aiAccountId: string | null; after: string | null; limit: number }): Promise<WebhookRecord[]> {
  const rows = await sql<WebhookRow[]>`
    select * from webhooks
    where workspace_id = ${p.workspaceId} and deleted_at is null
      and (${p.aiAccountId}::text is null or ai_account_id = ${p.aiAccountId})
      and (${p.after}::text is null or id > ${p.after})
    order by id
    limit ${p.limit + 1}`;
  return rows.map(toWebhook);
}

/** Sets the given fields of a live webhook; null when missing or deleted. */
export async function webhooksUpdate(sql: SqlClient, p: { workspaceId: string; webhookId: string; changes: { url?: string; name?: string; filter?: WebhookFilter; maxAttempts?: number }; now: Date }): Promise<WebhookRecord | null> {
  const c = p.changes;
  const hasFilter = c.filter !== undefined;
  const [row] = await sql<WebhookRow[]>`
    update webhooks
    set url = coalesce(${c.url ?? null}::text, url),
        name = coalesce(${c.name ?? null}::text, name),
        max_attempts = coalesce(${c.maxAttempts ?? null}::int, max_attempts),
        filter_templates = case when ${hasFilter}::boolean then ${c.filter?.templates ?? null}::text[] else filter_templates end,
        filter_min_priority_rank = case when ${hasFilter}::boolean then ${c.filter === undefined ? null : rankOf(c.filter)}::smallint else filter_min_priority_rank end,
        updated_at = ${p.now}
    where workspace_id = ${p.workspaceId} and id = ${p.webhookId} and deleted_at is null
    returning *`;
  return row ? toWebhook(row) : null;
}

/**
 * Replaces the signing keys when the current key is still `expectedCurrentKeyId`: a
 * compare-and-set in one UPDATE. Of two concurrent rotations the second waits on the row lock,
 * then (READ COMMITTED) re-checks the guard against the new keys and matches nothing.
 */
export async function webhooksReplaceSigningKeys(sql: SqlClient, p: { workspaceId: string; webhookId: string; expectedCurrentKeyId: string; keys: SigningKey[]; now: Date }): Promise<WebhookRecord | null> {
  const [row] = await sql<WebhookRow[]>`
    update webhooks
    set signing_keys = ${json(sql, storedKeys(p.keys))}::jsonb, updated_at = ${p.now}
    where workspace_id = ${p.workspaceId} and id = ${p.webhookId} and deleted_at is null and signing_keys -> 0 ->> 'id' = ${p.expectedCurrentKeyId}
    returning *`;
  return row ? toWebhook(row) : null;
}

/** Soft-deletes a live webhook and deletes its pending and retrying deliveries, in one statement. */
export async function webhooksSoftDelete(sql: SqlClient, p: { workspaceId: string; webhookId: string; now: Date }): Promise<{ webhook: WebhookRecord; purged: number } | null> {
  const [row] = await sql<(WebhookRow & { purged: number })[]>`
    with deleted as (
      update webhooks set deleted_at = ${p.now}, updated_at = ${p.now}
      where workspace_id = ${p.workspaceId} and id = ${p.webhookId} and deleted_at is null
      returning *
    ),
    purged as (
      delete from webhook_outbox o using deleted
      where o.workspace_id = deleted.workspace_id and o.webhook_id = deleted.id and o.state in ('pending', 'retrying')
      returning 1
    )
    select deleted.*, (select count(*) from purged)::int as purged from deleted`;
  return row ? { webhook: toWebhook(row), purged: row.purged } : null;
}

/**
 * Outbox counts by state, the last success, the last failure of a delivery still failing
 * (retrying or dead: a delivery that failed and then got through is not a failure any more), and
 * the most recent dead deliveries.
 */
export async function webhooksStats(sql: SqlClient, p: { workspaceId: string; webhookId: string; recentDeadLimit: number }): Promise<WebhookStats> {
  const [summary] = await sql<{ counts: Partial<Record<DeliveryState, number>> | null; last_success_at: Date | null; last_failure_at: Date | null; last_failure_reason: string | null }[]>`
    select
      (select jsonb_object_agg(state, n) from (
         select state, count(*)::int as n from webhook_outbox where workspace_id = ${p.workspaceId} and webhook_id = ${p.webhookId} group by state
       ) as by_state) as counts,
      (select max(delivered_at) from webhook_outbox where workspace_id = ${p.workspaceId} and webhook_id = ${p.webhookId}) as last_success_at,
      failure.last_attempt_at as last_failure_at,
      failure.last_error as last_failure_reason
    from (select 1) as one
    left join lateral (
      select last_attempt_at, last_error from webhook_outbox
      where workspace_id = ${p.workspaceId} and webhook_id = ${p.webhookId} and state <> 'delivered' and last_error is not null and last_attempt_at is not null
      order by last_attempt_at desc
      limit 1
    ) as failure on true`;
  const dead = await sql<OutboxRow[]>`
    select * from webhook_outbox where workspace_id = ${p.workspaceId} and webhook_id = ${p.webhookId} and state = 'dead'
    order by id desc
    limit ${p.recentDeadLimit}`;
  const counts = summary?.counts ?? {};
  return {
    counts: { pending: counts.pending ?? 0, retrying: counts.retrying ?? 0, delivered: counts.delivered ?? 0, dead: counts.dead ?? 0 },
    lastSuccessAt: summary?.last_success_at ?? null,
    lastFailureAt: summary?.last_failure_at ?? null,
    lastFailureReason: summary?.last_failure_reason ?? null,
    recentDead: dead.map(toDelivery),
  };
}
