import { ulidSource, type IdSource } from "@agentq/core";
import type postgres from "postgres";
import { PAYLOAD } from "./fixture.ts";

/** The sender and recipient the raw statements write for. */
export interface RawParties {
  workspaceId: string;
  senderId: string;
  senderName: string;
  recipientId: string;
  recipientName: string;
}

const TTL_MS = 7 * 24 * 3600_000;
const IDEMPOTENCY_RETENTION_MS = 24 * 3600_000;

/**
 * The rows one send writes (the message, its `message.sent` audit row and the idempotency
 * record holding the response), inserted as ONE statement in its own transaction: the
 * PostgreSQL limit S1 is measured against. No recipient check, webhook outbox or wake-up.
 */
export async function insertSendRows(sql: postgres.Sql, ids: IdSource, p: RawParties): Promise<void> {
  const id = ids.next();
  const auditId = ids.next();
  const requestId = ids.next();
  const now = new Date();
  const expires = new Date(now.getTime() + TTL_MS);
  const body = JSON.stringify({ message_id: id, state: "pending", accepted_at: now.toISOString(), expires_at: expires.toISOString(), recipient: { ai_account_id: p.recipientId, friendly_name: p.recipientName } });
  const details = { recipient_id: p.recipientId, template: "directive", priority: "normal", correlation_id: null, deliver_at: now.toISOString(), expires_at: expires.toISOString() };
  await sql`
    with message as (
      insert into messages (workspace_id, id, sender_id, sender_name, recipient_id, recipient_name, template, priority_rank, correlation_id, payload, state, accepted_at, expires_at, visible_at)
      values (${p.workspaceId}, ${id}, ${p.senderId}, ${p.senderName}, ${p.recipientId}, ${p.recipientName}, 'directive', 1, null, ${sql.json(PAYLOAD)}::jsonb, 'pending', ${now}, ${expires}, ${now})
      returning id
    ),
    audit as (
      insert into audit_log (workspace_id, id, occurred_at, activity, actor_account_id, actor_credential_id, subject_type, subject_id, message_id, details, operator_significant, request_id)
      select ${p.workspaceId}, ${auditId}, ${now}, 'message.sent', ${p.senderId}, null, 'message', message.id, message.id, ${sql.json(details)}::jsonb, false, ${requestId} from message
    ),
    idempotency as (
      insert into idempotency_keys (workspace_id, account_id, key, fingerprint, request_id, status, body_text, created_at, expires_at)
      values (${p.workspaceId}, ${p.senderId}, ${`l1-${id}`}, ${"f".repeat(64)}, ${requestId}, 201, ${body}, ${now}, ${new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS)})
    )
    select 1`;
}

/**
 * Pre-loads `count` pending messages (and their `message.sent` audit rows) for a recipient in
 * chunks of 5,000 rows per statement, then analyzes both tables: the backlog of a drain, written fast.
 */
export async function preloadMessages(sql: postgres.Sql, p: RawParties & { count: number }, onChunk?: (done: number) => void): Promise<void> {
  const ids = ulidSource();
  const chunk = 5_000;
  for (let done = 0; done < p.count; ) {
    const n = Math.min(chunk, p.count - done);
    const messageIds: string[] = [];
    const auditIds: string[] = [];
    for (let i = 0; i < n; i++) {
      messageIds.push(ids.next());
      auditIds.push(ids.next());
    }
    const now = new Date();
    const expires = new Date(now.getTime() + TTL_MS);
    await sql.begin(async (tx) => {
      await tx`
        insert into messages (workspace_id, id, sender_id, sender_name, recipient_id, recipient_name, template, priority_rank, correlation_id, payload, state, accepted_at, expires_at, visible_at)
        select ${p.workspaceId}, m.id, ${p.senderId}, ${p.senderName}, ${p.recipientId}, ${p.recipientName}, 'directive', 1, null, ${sql.json(PAYLOAD)}::jsonb, 'pending', ${now}, ${expires}, ${now}
        from unnest(${messageIds}::text[]) as m(id)`;
      await tx`
        insert into audit_log (workspace_id, id, occurred_at, activity, actor_account_id, actor_credential_id, subject_type, subject_id, message_id, details, operator_significant, request_id)
        select ${p.workspaceId}, a.audit_id, ${now}, 'message.sent', ${p.senderId}, null, 'message', a.message_id, a.message_id, '{"template":"directive","priority":"normal"}'::jsonb, false, null
        from unnest(${auditIds}::text[], ${messageIds}::text[]) as a(audit_id, message_id)`;
    });
    done += n;
    onChunk?.(done);
  }
  // A bulk load outruns autovacuum's analyze: refresh the planner's statistics, as the
  // autovacuum settings of the queue tables would shortly after, so the drain is not planned
  // on the statistics of an empty table.
  await sql`analyze messages`;
  await sql`analyze audit_log`;
}

/**
 * Claims up to `max` messages of the recipient as raw SQL in ONE statement: the same rows the
 * service's claim writes (lease on the message, one `message.claimed` audit row each), over the
 * same partial index and `FOR UPDATE SKIP LOCKED`.
 */
export async function claimRaw(sql: postgres.Sql, ids: IdSource, p: RawParties & { max: number }): Promise<{ id: string; lease_id: string }[]> {
  const auditIds = Array.from({ length: p.max }, () => ids.next());
  return sql<{ id: string; lease_id: string }[]>`
    with candidates as (
      select id from messages
      where workspace_id = ${p.workspaceId} and recipient_id = ${p.recipientId} and state in ('pending', 'held') and visible_at <= now() and expires_at > now()
      order by priority_rank desc nulls last, accepted_at, id
      limit ${p.max}
      for update skip locked
    ),
    claimed as (
      update messages m
      set state = 'held', lease_id = gen_random_uuid()::text, lease_claimed_at = now(), visible_at = now() + interval '120 seconds', delivery_count = m.delivery_count + 1
      from candidates c
      where m.workspace_id = ${p.workspaceId} and m.id = c.id
      returning m.id, m.lease_id, m.delivery_count, m.visible_at
    ),
    numbered as (select claimed.*, row_number() over () as n from claimed),
    audit as (
      insert into audit_log (workspace_id, id, occurred_at, activity, actor_account_id, actor_credential_id, subject_type, subject_id, message_id, details, operator_significant, request_id)
      select ${p.workspaceId}, a.audit_id, now(), 'message.claimed', ${p.recipientId}, null, 'message', numbered.id, numbered.id,
             jsonb_build_object('lease_id', numbered.lease_id, 'delivery_count', numbered.delivery_count), false, null
      from numbered join unnest(${auditIds}::text[]) with ordinality as a(audit_id, ord) on a.ord = numbered.n
    )
    select id, lease_id from numbered`;
}

/** Acknowledges a claimed batch as raw SQL in ONE statement (guarded by each lease, one `message.acknowledged` audit row each); returns how many were acknowledged. */
export async function ackRaw(sql: postgres.Sql, ids: IdSource, p: RawParties & { items: readonly { id: string; lease_id: string }[] }): Promise<number> {
  const auditIds = p.items.map(() => ids.next());
  const [row] = await sql<{ count: number }[]>`
    with items as (
      select * from unnest(${p.items.map((i) => i.id)}::text[], ${p.items.map((i) => i.lease_id)}::text[], ${auditIds}::text[]) as u(id, lease_id, audit_id)
    ),
    changed as (
      update messages m set state = 'acknowledged', acknowledged_at = now(), outcome_summary = 'ok'
      from items
      where m.workspace_id = ${p.workspaceId} and m.id = items.id and m.recipient_id = ${p.recipientId}
        and m.state = 'held' and m.lease_id = items.lease_id and m.visible_at > now() and m.expires_at > now()
      returning m.id, items.lease_id, items.audit_id
    ),
    audit as (
      insert into audit_log (workspace_id, id, occurred_at, activity, actor_account_id, actor_credential_id, subject_type, subject_id, message_id, details, operator_significant, request_id)
      select ${p.workspaceId}, changed.audit_id, now(), 'message.acknowledged', ${p.recipientId}, null, 'message', changed.id, changed.id,
             jsonb_build_object('lease_id', changed.lease_id, 'outcome_summary', 'ok'), false, null
      from changed
    )
    select count(*)::int as count from changed`;
  return row?.count ?? 0;
}
