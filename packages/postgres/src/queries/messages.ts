import { PRIORITIES, PRIORITY_RANK, type InboxSnapshot, type WatchedRecipient, type MessageMatch, type WaitingCounts, type CallerGuard, type IdempotencyRecord, type MessageRecord, type MessageState, type NewAuditEntry, type NewMessage, type Priority } from "@agentq/core";
import type postgres from "postgres";
import type { SqlClient } from "../sql-client.ts";
import { json } from "./json.ts";

/** The LISTEN/NOTIFY channel of wake-ups; the payload is `<workspace id>:<recipient id>`. */
export const WAKEUP_CHANNEL = "agentq_messages";

/** The channel a send notifies (empty payload, at commit) when it queued webhook deliveries: the outbox dispatchers listen on it. */
export const OUTBOX_CHANNEL = "agentq_outbox";

/** Event type of the outbox row a send writes per live webhook of the recipient (the core's MESSAGE_SENT_EVENT). */
const MESSAGE_SENT_EVENT = "message.sent";

/** A piece of SQL built with the client's tagged template, nested in a statement. */
type Fragment = postgres.PendingQuery<postgres.Row[]>;

interface MessageRow {
  workspace_id: string;
  id: string;
  sender_id: string;
  sender_name: string;
  recipient_id: string;
  recipient_name: string;
  template: string;
  priority_rank: number;
  correlation_id: string | null;
  payload: unknown;
  state: MessageState;
  accepted_at: Date;
  expires_at: Date;
  visible_at: Date;
  delivery_count: number;
  lease_id: string | null;
  lease_claimed_at: Date | null;
  lease_extensions: number;
  last_extended_at: Date | null;
  last_nacked_at: Date | null;
  acknowledged_at: Date | null;
  outcome_summary: string | null;
  dead_lettered_at: Date | null;
  traceparent: string | null;
  in_reply_to: string | null;
  thread_id: string | null;
  approval_policy_id: string | null;
}

function toMessage(r: MessageRow): MessageRecord {
  return {
    id: r.id,
    workspaceId: r.workspace_id,
    senderId: r.sender_id,
    senderName: r.sender_name,
    recipientId: r.recipient_id,
    recipientName: r.recipient_name,
    template: r.template,
    priority: PRIORITIES[r.priority_rank] as Priority,
    correlationId: r.correlation_id,
    payload: r.payload,
    state: r.state,
    acceptedAt: r.accepted_at,
    expiresAt: r.expires_at,
    visibleAt: r.visible_at,
    deliveryCount: r.delivery_count,
    leaseId: r.lease_id,
    leaseClaimedAt: r.lease_claimed_at,
    leaseExtensions: r.lease_extensions,
    lastExtendedAt: r.last_extended_at,
    lastNackedAt: r.last_nacked_at,
    acknowledgedAt: r.acknowledged_at,
    outcomeSummary: r.outcome_summary,
    deadLetteredAt: r.dead_lettered_at,
    traceparent: r.traceparent,
    inReplyTo: r.in_reply_to,
    threadId: r.thread_id,
    approvalPolicyId: r.approval_policy_id ?? null,
  };
}

/** A milliseconds count as a PostgreSQL interval parameter expression. */
function ms(sql: SqlClient, value: number) {
  return sql`(${value}::float8 * interval '1 millisecond')`;
}

/** The result of `messagesAcceptSend`. */
export type AcceptSendOutcome = { kind: "accepted"; message: MessageRecord; heldBy?: { policyId: string; policyName: string } } | { kind: "idempotency_exists" } | { kind: "recipient_gone" } | { kind: "policy_unacknowledged" } | { kind: "caller_refused" };

/**
 * The whole write of a send in ONE statement (CTEs), so it is atomic even outside a transaction:
 * 1. the guards: the recipient must still be addressable under the name it was resolved by
 *    (same id, same friendly name, not revoked) and the sender must have acknowledged the
 *    current version of every required policy of the workspace (both read, not locked: a
 *    revoke, a rename or a new required policy racing the send may let one message through,
 *    as if the send had come first); when a guard fails, a committed unexpired record of the
 *    key still answers `idempotency_exists` (a replay);
 * 2. the idempotency record is inserted `ON CONFLICT DO NOTHING`-style (an expired record is
 *    replaced); a concurrent insert of the same key waits on the other transaction's row lock
 *    and then sees its committed row (no insert) or, when it rolled back, inserts;
 * 3. only when the record went in (or no key was given): the message, its audit row and one
 *    outbox row per live webhook of the recipient whose filter matches (template, priority);
 * 4. pg_notify on the wake-up channel when the message is claimable now (delivered at commit).
 * Approval (DESIGN §2c): the first approval policy (by name) whose current version holds the send
 * (`approvalHolding`, through policies_approval_idx: one empty index probe for a workspace with
 * none) makes the message `held_for_approval`: no wake-up, no outbox row, the idempotent body
 * says so, and with `heldAuditId` a `message.held_for_approval` row.
 * Isolation: READ COMMITTED is enough; no lock but the idempotency key's row lock is taken.
 */
export async function messagesAcceptSend(sql: SqlClient, p: { message: NewMessage; audit: NewAuditEntry; heldAuditId?: string | null; idempotency: IdempotencyRecord | null; caller?: CallerGuard | null }): Promise<AcceptSendOutcome> {
  const m = p.message;
  const a = p.audit;
  const k = p.idempotency;
  const hasKey = k !== null;
  const [row] = await sql<(Partial<MessageRow> & { caller_ok: boolean; recipient_ok: boolean; policy_ok: boolean; idempotency_inserted: boolean; key_exists: boolean; woke: number; approval_policy_name: string | null })[]>`
    with caller as (
      -- With a caller guard, the sender's name comes from the account row read here (the caller's cached name may be a few seconds old).
      select ${p.caller == null}::boolean or ca.id is not null as ok, coalesce(ca.friendly_name, ${m.senderName}::text) as name
      from (select 1) as one
      left join (
        select a.id, a.friendly_name from ai_accounts a join workspaces w on w.id = a.workspace_id
        where ${p.caller != null}::boolean and a.workspace_id = ${m.workspaceId} and a.id = ${p.caller?.accountId ?? null}::text and a.state = 'active' and w.state = 'active'
      ) as ca on true
    ),
    recipient as (
      select 1 from ai_accounts where workspace_id = ${m.workspaceId} and id = ${m.recipientId} and friendly_name = ${m.recipientName} and state <> 'revoked'
    ),
    policy_gate as (
      select 1 from policies p
      left join policy_acknowledgements a on a.workspace_id = p.workspace_id and a.policy_id = p.id and a.account_id = ${m.senderId}
      where p.workspace_id = ${m.workspaceId} and p.current_required and a.version is distinct from p.current_version
      limit 1
    ),
    guards as (
      select 1 where exists (select 1 from recipient) and not exists (select 1 from policy_gate) and (select ok from caller)
    ),
    approval as (${approvalHolding(sql, { workspaceId: m.workspaceId, template: m.template, recipientName: m.recipientName, senderName: sql`(select name from caller)`, priority: m.priority })}),
    idempotency as (
      insert into idempotency_keys (workspace_id, account_id, key, fingerprint, request_id, status, body_text, created_at, expires_at)
      select ${k?.workspaceId ?? null}::text, ${k?.accountId ?? null}::text, ${k?.key ?? null}::text, ${k?.fingerprint ?? null}::text, ${k?.requestId ?? null}::text,
             ${k?.status ?? null}::smallint, ${heldBodyText(sql, sql`${k?.bodyText ?? null}::text`, sql`(select id from approval)`, sql`(select name from approval)`)},
             ${k?.createdAt ?? null}::timestamptz, ${k?.expiresAt ?? null}::timestamptz
      where ${hasKey}::boolean and exists (select 1 from guards)
      on conflict (workspace_id, account_id, key) do update
        set fingerprint = excluded.fingerprint, request_id = excluded.request_id, status = excluded.status, body_text = excluded.body_text,
            created_at = excluded.created_at, expires_at = excluded.expires_at
        where idempotency_keys.expires_at <= now()
      returning 1
    ),
    proceed as (
      select 1 where exists (select 1 from guards) and (not ${hasKey}::boolean or exists (select 1 from idempotency))
    ),
    message as (
      insert into messages (workspace_id, id, sender_id, sender_name, recipient_id, recipient_name, template, priority_rank, correlation_id, payload, state, accepted_at, expires_at, visible_at, in_reply_to, thread_id, approval_policy_id, traceparent)
      select ${m.workspaceId}, ${m.id}, ${m.senderId}, (select name from caller), ${m.recipientId}, ${m.recipientName}, ${m.template}, ${PRIORITY_RANK[m.priority]}, ${m.correlationId},
             ${json(sql, m.payload)}::jsonb, case when exists (select 1 from approval) then 'held_for_approval' else 'pending' end,
             ${m.acceptedAt}, ${m.expiresAt}, ${m.visibleAt}, ${m.inReplyTo}::text, ${m.threadId}::text, (select id from approval), ${m.traceparent}::text
      from proceed
      returning *
    ),
    audit as (
      insert into audit_log (workspace_id, id, occurred_at, activity, actor_account_id, actor_credential_id, subject_type, subject_id, message_id, details, operator_significant, request_id)
      select ${a.workspaceId}, ${a.id}, ${a.occurredAt}, ${a.activity}, ${a.actorAccountId}, ${a.actorCredentialId}, ${a.subjectType}, ${a.subjectId}, ${a.messageId},
             ${json(sql, a.details)}::jsonb, ${a.operatorSignificant}, ${a.requestId}
      from message
    ),
    held_audit as (
      insert into audit_log (workspace_id, id, occurred_at, activity, actor_account_id, actor_credential_id, subject_type, subject_id, message_id, details, operator_significant, request_id)
      select ${a.workspaceId}, ${p.heldAuditId ?? null}::text, ${a.occurredAt}, 'message.held_for_approval', ${a.actorAccountId}, ${a.actorCredentialId}, ${a.subjectType}, ${a.subjectId}, ${a.messageId},
             jsonb_build_object('policy_id', approval.id, 'policy_name', approval.name), ${a.operatorSignificant}, ${a.requestId}
      from message join approval on true
      where ${p.heldAuditId != null}::boolean
    ),
    outbox as (${sentDeliveries(sql, "message", { priority: sql`${m.priority}::text`, acceptedAt: sql`${m.acceptedAt.toISOString()}::text`, expiresAt: sql`${m.expiresAt.toISOString()}::text`, dueAt: sql`message.accepted_at` })}),
    wake as (
      select pg_notify(${WAKEUP_CHANNEL}, message.workspace_id || ':' || message.recipient_id) from message where message.visible_at <= now() and message.state = 'pending'
      -- The dispatchers' wake-up, only when a delivery was queued (notifying transactions serialise their commits).
      union all
      select pg_notify(${OUTBOX_CHANNEL}, '') where exists (select 1 from outbox)
    )
    select (select ok from caller) as caller_ok,
           exists (select 1 from recipient) as recipient_ok,
           not exists (select 1 from policy_gate) as policy_ok,
           exists (select 1 from idempotency) as idempotency_inserted,
           -- Read only when a guard failed (a stored key then wins): an accepted send skips it.
           (case when exists (select 1 from guards) then false else ${hasKey}::boolean and exists (
             select 1 from idempotency_keys
             where workspace_id = ${k?.workspaceId ?? null}::text and account_id = ${k?.accountId ?? null}::text and key = ${k?.key ?? null}::text and expires_at > now()
           ) end) as key_exists,
           (select count(*) from wake)::int as woke,
           (select name from approval) as approval_policy_name,
           message.*
    from (select 1) as one left join message on true`;
  if (!row) throw new Error("messagesAcceptSend: no row");
  if (!row.caller_ok) return { kind: "caller_refused" };
  // A stored key wins over a gone recipient: a replay answers with the original response.
  if (!row.recipient_ok) return row.key_exists ? { kind: "idempotency_exists" } : { kind: "recipient_gone" };
  if (!row.policy_ok) return row.key_exists ? { kind: "idempotency_exists" } : { kind: "policy_unacknowledged" };
  if (row.id == null) return { kind: "idempotency_exists" };
  return accepted(row as MessageRow & { approval_policy_name: string | null });
}

/** An accepted send's outcome, naming the approval policy that held it, if one did. */
function accepted(row: MessageRow & { approval_policy_name: string | null }): AcceptSendOutcome {
  const message = toMessage(row);
  if (message.approvalPolicyId === null || row.approval_policy_name === null) return { kind: "accepted", message };
  return { kind: "accepted", message, heldBy: { policyId: message.approvalPolicyId, policyName: row.approval_policy_name } };
}

/**
 * The approval policy that holds a send (DESIGN §2c), as a subquery: the first by name among the
 * workspace's policies whose current version is of kind approval and whose every populated
 * dimension matches (core `holdsSend`). Reached through policies_approval_idx, so a workspace
 * without approval policies costs one empty index probe.
 */
function approvalHolding(sql: SqlClient, p: { workspaceId: SqlPart; template: SqlPart; recipientName: SqlPart; senderName: SqlPart; priority: SqlPart }) {
  return sql`
      select ap.id, ap.name from policies ap
      join policy_versions av on av.workspace_id = ap.workspace_id and av.policy_id = ap.id and av.version = ap.current_version
      where ap.workspace_id = ${p.workspaceId} and ap.current_approval
        and (av.hold_templates is null or ${p.template}::text = any(av.hold_templates))
        and (av.hold_recipients is null or ${p.recipientName}::text = any(av.hold_recipients))
        and (av.hold_senders is null or ${p.senderName}::text = any(av.hold_senders))
        and (av.hold_priorities is null or ${p.priority}::text = any(av.hold_priorities))
      order by ap.name
      limit 1`;
}

/** A value or an SQL fragment, as a statement builder takes them. */
type SqlPart = string | postgres.Fragment;

/** The stored idempotent body of a send: as given, or, held by a policy, with `state: "held_for_approval"` and `approval` (core `heldSendBody`). */
function heldBodyText(sql: SqlClient, body: postgres.Fragment, policyId: postgres.Fragment, policyName: postgres.Fragment) {
  return sql`case when ${policyId} is null then ${body}
    else jsonb_set(jsonb_set((${body})::jsonb, '{state}', '"held_for_approval"'), '{approval}', jsonb_build_object('policy_id', ${policyId}, 'policy_name', ${policyName}))::text end`;
}

/** One send of `messagesAcceptSends`: the parameters of `messagesAcceptSend`. */
export interface AcceptSendItem {
  message: NewMessage;
  audit: NewAuditEntry;
  heldAuditId?: string | null;
  idempotency: IdempotencyRecord | null;
  caller?: CallerGuard | null;
}

/**
 * Several sends in ONE statement and one commit (group commit, docs/performance.md lever 5):
 * exactly `messagesAcceptSend` for each item, row by row (its own caller guard, recipient guard,
 * policy gate, idempotency key, message, audit row, outbox rows, wake-up), the items travelling
 * as arrays. Returns each item's outcome, in item order, as `messagesAcceptSend` would have.
 * No two items may carry the same idempotency key (the caller splits them over statements: one
 * statement cannot insert one key twice). Keys are inserted in key order, so two statements
 * holding the same keys wait on each other rather than deadlock.
 */
export async function messagesAcceptSends(sql: SqlClient, items: readonly AcceptSendItem[]): Promise<AcceptSendOutcome[]> {
  if (items.length === 0) return [];
  const col = <T>(f: (i: AcceptSendItem) => T) => items.map(f);
  const iso = (d: Date | null | undefined) => (d == null ? null : d.toISOString());
  const rows = await sql<(Partial<MessageRow> & { ord: string; caller_ok: boolean; recipient_ok: boolean; policy_ok: boolean; key_exists: boolean; woke: number; approval_policy_name: string | null })[]>`
    with items as (
      select * from unnest(
        ${col((i) => i.message.workspaceId)}::text[], ${col((i) => i.message.id)}::text[], ${col((i) => i.message.senderId)}::text[], ${col((i) => i.message.senderName)}::text[],
        ${col((i) => i.message.recipientId)}::text[], ${col((i) => i.message.recipientName)}::text[], ${col((i) => i.message.template)}::text[],
        ${col((i) => PRIORITY_RANK[i.message.priority])}::int4[], ${col((i) => i.message.priority)}::text[], ${col((i) => i.message.correlationId)}::text[],
        ${col((i) => JSON.stringify(i.message.payload))}::text[], ${col((i) => iso(i.message.acceptedAt))}::text[]::timestamptz[],
        ${col((i) => iso(i.message.expiresAt))}::text[]::timestamptz[], ${col((i) => iso(i.message.visibleAt))}::text[]::timestamptz[],
        ${col((i) => i.caller?.accountId ?? null)}::text[], ${col((i) => i.message.inReplyTo)}::text[], ${col((i) => i.message.threadId)}::text[], ${col((i) => i.heldAuditId ?? null)}::text[],
        ${col((i) => i.message.traceparent)}::text[],
        ${col((i) => i.audit.workspaceId)}::text[], ${col((i) => i.audit.id)}::text[], ${col((i) => iso(i.audit.occurredAt))}::text[]::timestamptz[],
        ${col((i) => i.audit.activity)}::text[], ${col((i) => i.audit.actorAccountId)}::text[], ${col((i) => i.audit.actorCredentialId)}::text[],
        ${col((i) => i.audit.subjectType)}::text[], ${col((i) => i.audit.subjectId)}::text[], ${col((i) => i.audit.messageId)}::text[],
        ${col((i) => JSON.stringify(i.audit.details))}::text[], ${col((i) => String(i.audit.operatorSignificant))}::text[]::boolean[], ${col((i) => i.audit.requestId)}::text[],
        ${col((i) => i.idempotency?.workspaceId ?? null)}::text[], ${col((i) => i.idempotency?.accountId ?? null)}::text[], ${col((i) => i.idempotency?.key ?? null)}::text[],
        ${col((i) => i.idempotency?.fingerprint ?? null)}::text[], ${col((i) => i.idempotency?.requestId ?? null)}::text[], ${col((i) => i.idempotency?.status ?? null)}::int4[],
        ${col((i) => i.idempotency?.bodyText ?? null)}::text[], ${col((i) => iso(i.idempotency?.createdAt))}::text[]::timestamptz[], ${col((i) => iso(i.idempotency?.expiresAt))}::text[]::timestamptz[]
      ) with ordinality as u(workspace_id, id, sender_id, sender_name, recipient_id, recipient_name, template, priority_rank, priority, correlation_id,
                             payload, accepted_at, expires_at, visible_at, caller_id, in_reply_to, thread_id, held_audit_id, traceparent,
                             a_workspace_id, a_id, a_occurred_at, a_activity, a_actor_account_id, a_actor_credential_id, a_subject_type, a_subject_id, a_message_id,
                             a_details, a_operator_significant, a_request_id,
                             k_workspace_id, k_account_id, k_key, k_fingerprint, k_request_id, k_status, k_body_text, k_created_at, k_expires_at, ord)
    ),
    checks as (
      select i.ord,
             (i.caller_id is null or ca.id is not null) as caller_ok,
             coalesce(ca.friendly_name, i.sender_name) as sender_name,
             exists (select 1 from ai_accounts r where r.workspace_id = i.workspace_id and r.id = i.recipient_id and r.friendly_name = i.recipient_name and r.state <> 'revoked') as recipient_ok,
             not exists (
               select 1 from policies p
               left join policy_acknowledgements pa on pa.workspace_id = p.workspace_id and pa.policy_id = p.id and pa.account_id = i.sender_id
               where p.workspace_id = i.workspace_id and p.current_required and pa.version is distinct from p.current_version
             ) as policy_ok,
             held.id as approval_id, held.name as approval_name
      from items i
      left join lateral (
        select a.id, a.friendly_name from ai_accounts a join workspaces w on w.id = a.workspace_id
        where a.workspace_id = i.workspace_id and a.id = i.caller_id and a.state = 'active' and w.state = 'active'
      ) as ca on true
      left join lateral (${approvalHolding(sql, { workspaceId: sql`i.workspace_id`, template: sql`i.template`, recipientName: sql`i.recipient_name`, senderName: sql`coalesce(ca.friendly_name, i.sender_name)`, priority: sql`i.priority` })}) as held on true
    ),
    passed as (
      select i.*, c.sender_name as checked_sender_name, c.approval_id, c.approval_name from items i join checks c on c.ord = i.ord
      where c.caller_ok and c.recipient_ok and c.policy_ok
    ),
    idempotency as (
      insert into idempotency_keys (workspace_id, account_id, key, fingerprint, request_id, status, body_text, created_at, expires_at)
      select k_workspace_id, k_account_id, k_key, k_fingerprint, k_request_id, k_status::smallint, ${heldBodyText(sql, sql`k_body_text`, sql`approval_id`, sql`approval_name`)}, k_created_at, k_expires_at
      from passed where k_key is not null
      order by k_workspace_id, k_account_id, k_key
      on conflict (workspace_id, account_id, key) do update
        set fingerprint = excluded.fingerprint, request_id = excluded.request_id, status = excluded.status, body_text = excluded.body_text,
            created_at = excluded.created_at, expires_at = excluded.expires_at
        where idempotency_keys.expires_at <= now()
      returning workspace_id, account_id, key
    ),
    proceed as (
      select p.* from passed p
      where p.k_key is null or exists (select 1 from idempotency k where k.workspace_id = p.k_workspace_id and k.account_id = p.k_account_id and k.key = p.k_key)
    ),
    message as (
      insert into messages (workspace_id, id, sender_id, sender_name, recipient_id, recipient_name, template, priority_rank, correlation_id, payload, state, accepted_at, expires_at, visible_at, in_reply_to, thread_id, approval_policy_id, traceparent)
      select workspace_id, id, sender_id, checked_sender_name, recipient_id, recipient_name, template, priority_rank, correlation_id, payload::jsonb,
             case when approval_id is null then 'pending' else 'held_for_approval' end, accepted_at, expires_at, visible_at, in_reply_to, thread_id, approval_id, traceparent
      from proceed
      returning *
    ),
    audit as (
      insert into audit_log (workspace_id, id, occurred_at, activity, actor_account_id, actor_credential_id, subject_type, subject_id, message_id, details, operator_significant, request_id)
      select p.a_workspace_id, p.a_id, p.a_occurred_at, p.a_activity, p.a_actor_account_id, p.a_actor_credential_id, p.a_subject_type, p.a_subject_id, p.a_message_id,
             p.a_details::jsonb, p.a_operator_significant, p.a_request_id
      from proceed p join message on message.id = p.id
      union all
      select p.a_workspace_id, p.held_audit_id, p.a_occurred_at, 'message.held_for_approval', p.a_actor_account_id, p.a_actor_credential_id, p.a_subject_type, p.a_subject_id, p.a_message_id,
             jsonb_build_object('policy_id', p.approval_id, 'policy_name', p.approval_name), p.a_operator_significant, p.a_request_id
      from proceed p join message on message.id = p.id
      where p.approval_id is not null and p.held_audit_id is not null
    ),
    outbox as (${sentDeliveries(sql, "message", { priority: sql`p.priority`, acceptedAt: sql`to_char(p.accepted_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`, expiresAt: sql`to_char(p.expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`, dueAt: sql`message.accepted_at`, join: sql`join proceed p on p.id = message.id` })}),
    wake as (
      select pg_notify(${WAKEUP_CHANNEL}, r.workspace_id || ':' || r.recipient_id)
      from (select distinct workspace_id, recipient_id from message where visible_at <= now() and state = 'pending') as r
      union all
      select pg_notify(${OUTBOX_CHANNEL}, '') where exists (select 1 from outbox)
    )
    select c.ord, c.caller_ok, c.recipient_ok, c.policy_ok,
           -- Read only when a guard failed (a stored key then wins): an accepted send skips it.
           (case when c.caller_ok and c.recipient_ok and c.policy_ok then false else i.k_key is not null and exists (
             select 1 from idempotency_keys k
             where k.workspace_id = i.k_workspace_id and k.account_id = i.k_account_id and k.key = i.k_key and k.expires_at > now()
           ) end) as key_exists,
           (select count(*) from wake)::int as woke,
           c.approval_name as approval_policy_name,
           message.*
    from checks c
    join items i on i.ord = c.ord
    left join message on message.id = i.id
    order by c.ord`;
  if (rows.length !== items.length) throw new Error("messagesAcceptSends: one row per item expected");
  return rows.map((row): AcceptSendOutcome => {
    if (!row.caller_ok) return { kind: "caller_refused" };
    if (!row.recipient_ok) return row.key_exists ? { kind: "idempotency_exists" } : { kind: "recipient_gone" };
    if (!row.policy_ok) return row.key_exists ? { kind: "idempotency_exists" } : { kind: "policy_unacknowledged" };
    if (row.id == null) return { kind: "idempotency_exists" };
    return accepted(row as MessageRow & { approval_policy_name: string | null });
  });
}

/**
 * Claims up to `max` messages of the recipient in ONE statement. Locks: `FOR UPDATE SKIP
 * LOCKED` over the partial claim index in dequeue order (priority_rank desc, accepted_at, id),
 * so concurrent claimers take disjoint rows and never wait on each other. Under READ COMMITTED a
 * row another claimer committed meanwhile is re-checked against `visible_at <= now()` before it
 * is taken. Candidates whose delivery count reached `maxDeliveries` are dead-lettered instead of
 * claimed. Each gets an audit row, its id taken from `auditIds` by dequeue position.
 */
export async function messagesClaimBatch(sql: SqlClient, p: ClaimBatchParams): Promise<{ claimed: MessageRecord[]; deadLettered: string[] }> {
  const limit = Math.max(0, Math.min(p.max, p.auditIds.length));
  if (limit === 0) return { claimed: [], deadLettered: [] };
  const rows = await sql<(Partial<MessageRow> & { dead_ids: string[] })[]>`${messagesClaimBatchStatement(sql, p, limit)}`;
  const claimed = rows.filter((r) => r.id != null).map((r) => toMessage(r as MessageRow));
  return { claimed, deadLettered: rows[0]?.dead_ids ?? [] };
}

/** The parameters of a claim. */
export interface ClaimBatchParams {
  workspaceId: string;
  recipientId: string;
  max: number;
  visibilityTimeoutMs: number;
  maxDeliveries: number;
  auditIds: readonly string[];
  requestId: string | null;
  credentialId: string | null;
  /** The caller guard: claims nothing unless the account is active in an active workspace. */
  caller?: CallerGuard | null;
  /** Only this thread's messages (its first message and the replies naming it). */
  threadId?: string | null;
}

/** The claim statement itself (exported so a test can EXPLAIN exactly what runs). */
export function messagesClaimBatchStatement(sql: SqlClient, p: ClaimBatchParams, limit: number) {
  return sql`
    with candidates as (
      select id, delivery_count, priority_rank, accepted_at
      from messages
      where workspace_id = ${p.workspaceId} and recipient_id = ${p.recipientId} and state in ('pending', 'held')
        and visible_at <= now() and expires_at > now() and ${callerIsActive(sql, p.workspaceId, p.caller)}${inThread(sql, p.threadId)}
      order by priority_rank desc nulls last, accepted_at, id
      limit ${limit}
      for update skip locked
    ),
    numbered as (
      select id, delivery_count, row_number() over (order by priority_rank desc, accepted_at, id) as n from candidates
    ),
    audit_ids as (
      select audit_id, ord from unnest(${[...p.auditIds]}::text[]) with ordinality as a(audit_id, ord)
    ),
    claimed as (
      update messages m
      set state = 'held', lease_id = agentq_ulid(), lease_claimed_at = now(), lease_extensions = 0, last_extended_at = null,
          visible_at = now() + ${ms(sql, p.visibilityTimeoutMs)}, delivery_count = m.delivery_count + 1
      from numbered
      where m.workspace_id = ${p.workspaceId} and m.id = numbered.id and numbered.delivery_count < ${p.maxDeliveries}
      returning m.*, numbered.n
    ),
    dead as (
      update messages m
      set state = 'dead_lettered', dead_lettered_at = now(), lease_id = null, lease_claimed_at = null
      from numbered
      where m.workspace_id = ${p.workspaceId} and m.id = numbered.id and numbered.delivery_count >= ${p.maxDeliveries}
      returning m.id, m.delivery_count, numbered.n
    ),
    claim_audit as (
      insert into audit_log (workspace_id, id, occurred_at, activity, actor_account_id, actor_credential_id, subject_type, subject_id, message_id, details, operator_significant, request_id)
      select ${p.workspaceId}, audit_ids.audit_id, now(), 'message.claimed', ${p.recipientId}, ${p.credentialId}, 'message', claimed.id, claimed.id,
             jsonb_build_object('lease_id', claimed.lease_id, 'delivery_count', claimed.delivery_count,
                                'lease_expires_at', to_char(claimed.visible_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
             false, ${p.requestId}
      from claimed join audit_ids on audit_ids.ord = claimed.n
    ),
    dead_audit as (
      insert into audit_log (workspace_id, id, occurred_at, activity, actor_account_id, actor_credential_id, subject_type, subject_id, message_id, details, operator_significant, request_id)
      select ${p.workspaceId}, audit_ids.audit_id, now(), 'message.dead_lettered', null, null, 'message', dead.id, dead.id,
             jsonb_build_object('delivery_count', dead.delivery_count, 'max_deliveries', ${p.maxDeliveries}::int),
             false, ${p.requestId}
      from dead join audit_ids on audit_ids.ord = dead.n
    )
    select (select coalesce(array_agg(id order by n), '{}') from dead) as dead_ids, claimed.*
    from (select 1) as one left join claimed on true
    order by claimed.n`;
}

/**
 * A claim's thread filter: nothing without a thread (the claim statement stays as it is), else
 * the thread's first message (by primary key; a reply's own id names no thread) or its replies
 * (messages_thread_idx).
 */
function inThread(sql: SqlClient, threadId: string | null | undefined) {
  if (threadId == null) return sql``;
  return sql` and ((id = ${threadId} and thread_id is null) or thread_id = ${threadId})`;
}

/** The guard every lease write shares: the recipient's message, held under this lease, live by the database clock and not expired. */
function leaseIsLive(sql: SqlClient, p: { workspaceId: string; messageId: string; recipientId: string; leaseId: string }) {
  return sql`workspace_id = ${p.workspaceId} and id = ${p.messageId} and recipient_id = ${p.recipientId}
    and state = 'held' and lease_id = ${p.leaseId} and visible_at > now() and expires_at > now()`;
}

/**
 * The caller guard of a write (docs/performance.md lever 3): true when no guard is asked for,
 * else when the account is active in an active workspace, read in the write's own statement
 * (not locked: a freeze racing the write lets that one write through, as if it came first).
 */
function callerIsActive(sql: SqlClient, workspaceId: string, caller: CallerGuard | null | undefined) {
  if (caller == null) return sql`true`;
  return sql`exists (
    select 1 from ai_accounts ca join workspaces cw on cw.id = ca.workspace_id
    where ca.workspace_id = ${workspaceId} and ca.id = ${caller.accountId} and ca.state = 'active' and cw.state = 'active')`;
}

/**
 * The `message.sent` webhook deliveries of the pending rows of CTE `rows` (`message` of a send,
 * `changed` of an approval): one per active webhook of the recipient whose filters (templates,
 * least priority) match, with the event's payload, in the same statement. The caller gives what
 * differs between the statements: the priority's name, the times as the payload shows them, when
 * the delivery is due, and a join its expressions need.
 */
function sentDeliveries(sql: SqlClient, rows: "message" | "changed", p: { priority: Fragment; acceptedAt: Fragment; expiresAt: Fragment; dueAt: Fragment; join?: Fragment }) {
  const r = sql(rows);
  return sql`
    insert into webhook_outbox (workspace_id, id, webhook_id, message_id, event_type, payload, state, attempts, next_attempt_at, created_at, traceparent)
    select w.workspace_id, agentq_ulid(), w.id, ${r}.id, ${MESSAGE_SENT_EVENT},
           jsonb_build_object(
             'message_id', ${r}.id,
             'sender', jsonb_build_object('ai_account_id', ${r}.sender_id, 'friendly_name', ${r}.sender_name),
             'recipient', jsonb_build_object('ai_account_id', ${r}.recipient_id, 'friendly_name', ${r}.recipient_name),
             'template', ${r}.template,
             'priority', ${p.priority},
             'correlation_id', ${r}.correlation_id,
             'accepted_at', ${p.acceptedAt},
             'expires_at', ${p.expiresAt}),
           'pending', 0, ${p.dueAt}, ${p.dueAt}, ${r}.traceparent
    from ${r}
    ${p.join ?? sql``}
    join webhooks w on w.workspace_id = ${r}.workspace_id and w.ai_account_id = ${r}.recipient_id and w.deleted_at is null and w.state = 'active'
    where ${r}.state = 'pending'
      and (w.filter_templates is null or ${r}.template = any(w.filter_templates))
      and (w.filter_min_priority_rank is null or ${r}.priority_rank >= w.filter_min_priority_rank)
    returning 1`;
}

/** The audit row of a lease write, inserted for each row the write's CTE `changed` returned. */
function auditFromChanged(sql: SqlClient, a: NewAuditEntry) {
  return sql`
    insert into audit_log (workspace_id, id, occurred_at, activity, actor_account_id, actor_credential_id, subject_type, subject_id, message_id, details, operator_significant, request_id)
    select ${a.workspaceId}, ${a.id}, ${a.occurredAt}, ${a.activity}, ${a.actorAccountId}, ${a.actorCredentialId}, ${a.subjectType}, ${a.subjectId}, ${a.messageId},
           ${json(sql, a.details)}::jsonb, ${a.operatorSignificant}, ${a.requestId}
    from changed`;
}

/**
 * Acknowledges a held message: ONE guarded UPDATE (the row lock serialises it against a
 * concurrent claim, nack or extend of the same message; READ COMMITTED re-checks the guard on
 * the newest row version) with its audit row. Null when the guard matched nothing.
 */
export async function messagesAckIfHeld(sql: SqlClient, p: { workspaceId: string; messageId: string; recipientId: string; leaseId: string; outcomeSummary: string | null; audit: NewAuditEntry; caller?: CallerGuard | null }): Promise<MessageRecord | null> {
  const [row] = await sql<MessageRow[]>`
    with changed as (
      update messages set state = 'acknowledged', acknowledged_at = now(), outcome_summary = ${p.outcomeSummary}
      where ${leaseIsLive(sql, p)} and ${callerIsActive(sql, p.workspaceId, p.caller)}
      returning *
    ),
    audit as (${auditFromChanged(sql, p.audit)})
    select * from changed`;
  return row ? toMessage(row) : null;
}

/** One item of `messagesAckBatchIfHeld`. */
export interface AckBatchItem {
  messageId: string;
  leaseId: string;
  outcomeSummary: string | null;
  audit: NewAuditEntry;
}

/**
 * Acknowledges several held messages of one recipient in ONE statement: the items travel as
 * arrays (unnest with ordinality), one UPDATE guarded per item exactly as `messagesAckIfHeld`
 * (its own lease id, live by the database clock, not expired) and one audit row per
 * acknowledged item. Returns the acknowledged rows with their item position (0-based). Message
 * ids must be distinct.
 *
 * The plan does not depend on statistics: each item's row is found by its key (workspace, id
 * and recipient: the primary key or the recipient index, both exact) in a lateral subquery (its
 * `limit 1` keeps the planner from merging it into a join), and the update reaches that row
 * version by its ctid (a TID scan). A row another transaction updated meanwhile is skipped, not
 * followed: the TID scan's recheck finds the newest version at another ctid. Its item then reads
 * as refused though its lease may still hold (an extend_lease of the same lease, say), so
 * `PgMessageStore.ackBatchIfHeld` tries such items once more when their snapshot shows the lease
 * live (batch-ack-concurrent-write.pg.test.ts). The targets come in
 * message id order, and with the nested loop of TID lookups this statement is planned as, the
 * update takes its row locks in that order, so two batches naming the same messages do not
 * deadlock; unlike the former explicit `FOR UPDATE ... order by id`, that order rests on the plan
 * (PostgreSQL would detect a deadlock and fail one batch). Written as a join of messages and
 * items, the planner, trusting statistics taken before this recipient had messages ("1 row"),
 * scanned the recipient's index once per item: 1.5 million buffers and 3 s for a batch of 100
 * (the soak of 2026-11-24, docs/performance.md).
 */
export async function messagesAckBatchIfHeld(sql: SqlClient, p: { workspaceId: string; recipientId: string; items: readonly AckBatchItem[]; caller?: CallerGuard | null }): Promise<Map<number, MessageRecord>> {
  const written = new Map<number, MessageRecord>();
  if (p.items.length === 0) return written;
  const col = <T>(f: (i: AckBatchItem) => T) => p.items.map(f);
  const rows = await sql<(MessageRow & { ord: string })[]>`
    with items as (
      select * from unnest(
        ${col((i) => i.messageId)}::text[], ${col((i) => i.leaseId)}::text[], ${col((i) => i.outcomeSummary)}::text[],
        ${col((i) => i.audit.workspaceId)}::text[], ${col((i) => i.audit.id)}::text[], ${col((i) => i.audit.occurredAt.toISOString())}::text[]::timestamptz[],
        ${col((i) => i.audit.activity)}::text[], ${col((i) => i.audit.actorAccountId)}::text[], ${col((i) => i.audit.actorCredentialId)}::text[],
        ${col((i) => i.audit.subjectType)}::text[], ${col((i) => i.audit.subjectId)}::text[], ${col((i) => i.audit.messageId)}::text[],
        ${col((i) => JSON.stringify(i.audit.details))}::text[], ${col((i) => String(i.audit.operatorSignificant))}::text[]::boolean[], ${col((i) => i.audit.requestId)}::text[]
      ) with ordinality as u(message_id, lease_id, outcome_summary, a_workspace_id, a_id, a_occurred_at, a_activity, a_actor_account_id, a_actor_credential_id,
                             a_subject_type, a_subject_id, a_message_id, a_details, a_operator_significant, a_request_id, ord)
    ),
    targets as (
      select t.row_at, items.ord, items.lease_id, items.outcome_summary
      from (select * from items order by message_id) items
      cross join lateral (
        select ctid as row_at from messages m
        where m.workspace_id = ${p.workspaceId} and m.id = items.message_id and m.recipient_id = ${p.recipientId}
        limit 1
      ) t
      where ${callerIsActive(sql, p.workspaceId, p.caller)}
    ),
    changed as (
      update messages m set state = 'acknowledged', acknowledged_at = now(), outcome_summary = targets.outcome_summary
      from targets
      where m.ctid = targets.row_at
        and m.state = 'held' and m.lease_id = targets.lease_id and m.visible_at > now() and m.expires_at > now()
      returning m.*, targets.ord
    ),
    audit as (
      insert into audit_log (workspace_id, id, occurred_at, activity, actor_account_id, actor_credential_id, subject_type, subject_id, message_id, details, operator_significant, request_id)
      select items.a_workspace_id, items.a_id, items.a_occurred_at, items.a_activity, items.a_actor_account_id, items.a_actor_credential_id, items.a_subject_type,
             items.a_subject_id, items.a_message_id, items.a_details::jsonb, items.a_operator_significant, items.a_request_id
      from changed join items on items.ord = changed.ord
    )
    select * from changed`;
  for (const row of rows) written.set(Number(row.ord) - 1, toMessage(row));
  return written;
}

/** The recipient's messages as they stand (null where missing or not the recipient's) and the database clock: what refused batch items report. */
export async function messagesLeaseSnapshots(sql: SqlClient, p: { workspaceId: string; recipientId: string; messageIds: readonly string[] }): Promise<{ snapshots: (MessageRecord | null)[]; now: Date }> {
  const rows = await sql<(Partial<MessageRow> & { db_now: Date; ord: string })[]>`
    select now() as db_now, u.ord, m.*
    from unnest(${[...p.messageIds]}::text[]) with ordinality as u(message_id, ord)
    left join messages m on m.workspace_id = ${p.workspaceId} and m.id = u.message_id and m.recipient_id = ${p.recipientId}
    order by u.ord`;
  const snapshots: (MessageRecord | null)[] = p.messageIds.map(() => null);
  let now: Date | null = null;
  for (const r of rows) {
    now = r.db_now;
    if (r.id != null) snapshots[Number(r.ord) - 1] = toMessage(r as MessageRow);
  }
  if (now === null) now = await messagesNow(sql);
  return { snapshots, now };
}

/**
 * Declines a held message: ONE guarded UPDATE (as ack, plus the nack interval and the
 * redelivery time before expiry) with its audit row, and a wake-up when it is claimable at once.
 */
export async function messagesNackIfHeld(sql: SqlClient, p: { workspaceId: string; messageId: string; recipientId: string; leaseId: string; redeliverAfterMs: number; minIntervalMs: number; audit: NewAuditEntry }): Promise<MessageRecord | null> {
  const [row] = await sql<(MessageRow & { woke: number })[]>`
    with changed as (
      update messages
      set state = 'pending', visible_at = now() + ${ms(sql, p.redeliverAfterMs)}, last_nacked_at = now(),
          lease_id = null, lease_claimed_at = null, lease_extensions = 0, last_extended_at = null
      where ${leaseIsLive(sql, p)}
        and (last_nacked_at is null or last_nacked_at <= now() - ${ms(sql, p.minIntervalMs)})
        and now() + ${ms(sql, p.redeliverAfterMs)} < expires_at
      returning *
    ),
    audit as (${auditFromChanged(sql, p.audit)}),
    wake as (
      select pg_notify(${WAKEUP_CHANNEL}, workspace_id || ':' || recipient_id) from changed where ${p.redeliverAfterMs}::float8 = 0
    )
    select changed.*, (select count(*) from wake)::int as woke from changed`;
  return row ? toMessage(row) : null;
}

/**
 * Extends a held lease: ONE guarded UPDATE (as ack, plus the extension interval and count, the
 * new expiry later than the current one and not past the message's expiry; the new expiry is
 * capped at the claim time plus `cumulativeCapMs`) with its audit row.
 */
export async function messagesExtendIfHeld(sql: SqlClient, p: { workspaceId: string; messageId: string; recipientId: string; leaseId: string; visibilityTimeoutMs: number; minIntervalMs: number; maxExtensions: number; cumulativeCapMs: number; audit: NewAuditEntry }): Promise<MessageRecord | null> {
  const newExpiry = sql`least(now() + ${ms(sql, p.visibilityTimeoutMs)}, coalesce(lease_claimed_at, now()) + ${ms(sql, p.cumulativeCapMs)})`;
  const [row] = await sql<MessageRow[]>`
    with changed as (
      update messages
      set visible_at = ${newExpiry}, lease_extensions = lease_extensions + 1, last_extended_at = now()
      where ${leaseIsLive(sql, p)}
        and (last_extended_at is null or last_extended_at <= now() - ${ms(sql, p.minIntervalMs)})
        and lease_extensions < ${p.maxExtensions}
        and ${newExpiry} > visible_at
        and ${newExpiry} <= expires_at
      returning *
    ),
    audit as (${auditFromChanged(sql, p.audit)})
    select * from changed`;
  return row ? toMessage(row) : null;
}

/** The result of `messagesHandOffIfHeld`: the handed-off row, `recipient_gone`, or null when the lease guard matched nothing. */
export type HandOffOutcome = { kind: "handed_off"; message: MessageRecord } | { kind: "recipient_gone" } | null;

/**
 * Hands a held message to another account in ONE statement (DESIGN §2c): the guard is ack's
 * (this recipient's message, this lease, live by the database clock, not expired) plus the new
 * recipient still holding its resolved name, not revoked and not the caller (read, not locked:
 * a rename racing the hand-off lets it through, as if it came first). The UPDATE moves the
 * message to the new recipient (pending, visible now(), lease fields and last nack cleared,
 * delivery count kept), with its audit row and a wake-up of the new recipient at commit. Locks:
 * the message row (a concurrent claim, ack, nack or extend of it waits, then re-checks its own
 * guard against the new row version and finds the lease gone).
 */
export async function messagesHandOffIfHeld(sql: SqlClient, p: { workspaceId: string; messageId: string; recipientId: string; leaseId: string; to: { accountId: string; friendlyName: string }; audit: NewAuditEntry }): Promise<HandOffOutcome> {
  const [row] = await sql<(Partial<MessageRow> & { target_ok: boolean; woke: number })[]>`
    with target as (
      select id as target_id, friendly_name as target_name from ai_accounts
      where workspace_id = ${p.workspaceId} and id = ${p.to.accountId} and friendly_name = ${p.to.friendlyName} and state <> 'revoked' and id <> ${p.recipientId}
    ),
    changed as (
      update messages
      set recipient_id = target.target_id, recipient_name = target.target_name, state = 'pending', visible_at = now(),
          lease_id = null, lease_claimed_at = null, lease_extensions = 0, last_extended_at = null, last_nacked_at = null
      from target
      where ${leaseIsLive(sql, p)}
      returning messages.*
    ),
    audit as (${auditFromChanged(sql, p.audit)}),
    wake as (select pg_notify(${WAKEUP_CHANNEL}, workspace_id || ':' || recipient_id) from changed)
    select exists (select 1 from target) as target_ok, (select count(*) from wake)::int as woke, changed.*
    from (select 1) as one left join changed on true`;
  if (!row?.target_ok) return { kind: "recipient_gone" };
  return row.id == null ? null : { kind: "handed_off", message: toMessage(row as MessageRow) };
}

/** The recipient's message as it stands and the database clock: what a refused lease write reports. */
export async function messagesLeaseSnapshot(sql: SqlClient, p: { workspaceId: string; messageId: string; recipientId: string }): Promise<{ snapshot: MessageRecord | null; now: Date }> {
  const [row] = await sql<(Partial<MessageRow> & { db_now: Date })[]>`
    select now() as db_now, m.*
    from (select 1) as one
    left join messages m on m.workspace_id = ${p.workspaceId} and m.id = ${p.messageId} and m.recipient_id = ${p.recipientId}`;
  if (!row) throw new Error("messagesLeaseSnapshot: no row");
  return { snapshot: row.id == null ? null : toMessage(row as MessageRow), now: row.db_now };
}

/** The message if the account is its sender or recipient, else null. */
export async function messagesFindForParticipant(sql: SqlClient, p: { workspaceId: string; messageId: string; accountId: string | null }): Promise<MessageRecord | null> {
  const participant = p.accountId === null ? sql`true` : sql`(sender_id = ${p.accountId} or recipient_id = ${p.accountId})`;
  const [row] = await sql<MessageRow[]>`
    select * from messages
    where workspace_id = ${p.workspaceId} and id = ${p.messageId} and ${participant}`;
  return row ? toMessage(row) : null;
}

/**
 * A page of a thread: its first message and its replies that the account sent or received (every
 * one with a null account), oldest first (id ascending), after `after`; at most `limit + 1`.
 * The first message by primary key, the replies by messages_thread_idx.
 */
export async function messagesListThread(sql: SqlClient, p: { workspaceId: string; threadId: string; accountId: string | null; after: string | null; limit: number }): Promise<MessageRecord[]> {
  const participant = p.accountId === null ? sql`true` : sql`(sender_id = ${p.accountId} or recipient_id = ${p.accountId})`;
  const rows = await sql<MessageRow[]>`
    select * from messages
    where workspace_id = ${p.workspaceId} and ((id = ${p.threadId} and thread_id is null) or thread_id = ${p.threadId}) and ${participant}
      and (${p.after}::text is null or id > ${p.after})
    order by id
    limit ${p.limit + 1}`;
  return rows.map(toMessage);
}

/**
 * Decides on a message held for approval in ONE guarded UPDATE (state held_for_approval, not
 * expired by the database clock; the row lock serialises two decisions, and the second finds the
 * guard false) with its audit row. Approved: pending, visible at greatest(visible_at, now()),
 * the recipient's webhook deliveries as a send writes them, and the wake-ups at commit; rejected:
 * the terminal state `rejected`. Null when the guard matched nothing; `db_now` either way.
 */
export async function messagesDecideApproval(sql: SqlClient, p: { workspaceId: string; messageId: string; approve: boolean; audit: NewAuditEntry }): Promise<{ message: MessageRecord | null; now: Date }> {
  const [row] = await sql<(Partial<MessageRow> & { db_now: Date; woke: number })[]>`
    with changed as (
      update messages
      set state = case when ${p.approve}::boolean then 'pending' else 'rejected' end,
          visible_at = case when ${p.approve}::boolean then greatest(visible_at, now()) else visible_at end
      where workspace_id = ${p.workspaceId} and id = ${p.messageId} and state = 'held_for_approval' and expires_at > now()
      returning *
    ),
    audit as (${auditFromChanged(sql, p.audit)}),
    outbox as (${sentDeliveries(sql, "changed", { priority: sql`(${[...PRIORITIES]}::text[])[changed.priority_rank + 1]`, acceptedAt: sql`to_char(changed.accepted_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`, expiresAt: sql`to_char(changed.expires_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`, dueAt: sql`now()` })}),
    wake as (
      select pg_notify(${WAKEUP_CHANNEL}, changed.workspace_id || ':' || changed.recipient_id) from changed where changed.state = 'pending' and changed.visible_at <= now()
      union all
      select pg_notify(${OUTBOX_CHANNEL}, '') where exists (select 1 from outbox)
    )
    select now() as db_now, (select count(*) from wake)::int as woke, changed.*
    from (select 1) as one left join changed on true`;
  if (!row) throw new Error("messagesDecideApproval: no row");
  return { message: row.id == null ? null : toMessage(row as MessageRow), now: row.db_now };
}

/** How many of the workspace's messages wait for approval (held, not expired), up to `limit` (messages_held_for_approval_idx). */
export async function messagesCountHeldForApproval(sql: SqlClient, p: { workspaceId: string; limit: number }): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from (
      select 1 from messages where workspace_id = ${p.workspaceId} and state = 'held_for_approval' and expires_at > now() limit ${p.limit}
    ) as waiting`;
  return row?.n ?? 0;
}

/** A page of the workspace's messages held for approval and not expired, oldest first (messages_held_for_approval_idx); at most `limit + 1`. */
export async function messagesListHeldForApproval(sql: SqlClient, p: { workspaceId: string; after: string | null; limit: number }): Promise<MessageRecord[]> {
  const rows = await sql<MessageRow[]>`
    select * from messages
    where workspace_id = ${p.workspaceId} and state = 'held_for_approval' and expires_at > now()
      and (${p.after}::text is null or id > ${p.after})
    order by id
    limit ${p.limit + 1}`;
  return rows.map(toMessage);
}

/** The database clock. */
export async function messagesNow(sql: SqlClient): Promise<Date> {
  const [row] = await sql<{ now: Date }[]>`select now() as now`;
  if (!row) throw new Error("messagesNow: no row");
  return row.now;
}

/** A page of the account's messages (sent, received or both; every message of the workspace with a null account), newest first, filtered by effective state; at most `limit + 1`. */
export async function messagesListForParticipant(sql: SqlClient, p: { workspaceId: string; accountId: string | null; role: "sent" | "received" | "any"; state: MessageState | null; match?: MessageMatch; after: string | null; limit: number }): Promise<MessageRecord[]> {
  const role =
    p.accountId === null ? sql`true` : p.role === "sent" ? sql`sender_id = ${p.accountId}` : p.role === "received" ? sql`recipient_id = ${p.accountId}` : sql`(sender_id = ${p.accountId} or recipient_id = ${p.accountId})`;
  const rows = await sql<MessageRow[]>`
    select * from messages
    where workspace_id = ${p.workspaceId} and ${role}
      and (${p.after}::text is null or id < ${p.after})
      and (${p.state}::text is null
           or (case when state in ('pending', 'held', 'held_for_approval') and expires_at <= now() then 'expired'
                    when state = 'held' and visible_at <= now() then 'pending' else state end) = ${p.state})
      and (${p.match?.recipientName ?? null}::text is null or recipient_name = ${p.match?.recipientName ?? null})
      and (${p.match?.senderName ?? null}::text is null or sender_name = ${p.match?.senderName ?? null})
      and (${p.match?.template ?? null}::text is null or template = ${p.match?.template ?? null})
      and (${p.match?.search ?? null}::text is null or id = ${p.match?.search ?? null} or correlation_id = ${p.match?.search ?? null})
    order by id desc
    limit ${p.limit + 1}`;
  return rows.map(toMessage);
}

/** A page of the workspace's dead-lettered messages, newest first; at most `limit + 1`. */
/**
 * What waits in a workspace, in one read: pending and held messages not expired at `now` per
 * recipient (a held one whose lease ran out counts as pending: any claim may take it) (the claim index holds exactly those rows), named by the account's current name,
 * and the dead letters (their partial index).
 */
export async function messagesCountWaiting(sql: SqlClient, p: { workspaceId: string; now: Date }): Promise<WaitingCounts> {
  const rows = await sql<{ recipient_id: string; friendly_name: string; pending: number; held: number; dead_lettered: number }[]>`
    select w.recipient_id, a.friendly_name, w.pending, w.held, d.dead_lettered
    from (select count(*)::int as dead_lettered from messages where workspace_id = ${p.workspaceId} and state = 'dead_lettered') d
    left join (
      select recipient_id, count(*) filter (where state = 'pending' or visible_at <= ${p.now})::int as pending,
             count(*) filter (where state = 'held' and visible_at > ${p.now})::int as held
      from messages
      where workspace_id = ${p.workspaceId} and state in ('pending', 'held') and expires_at > ${p.now}
      group by recipient_id
    ) w on true
    left join ai_accounts a on a.workspace_id = ${p.workspaceId} and a.id = w.recipient_id
    order by a.friendly_name`;
  return {
    recipients: rows.filter((r) => r.recipient_id !== null).map((r) => ({ accountId: r.recipient_id, friendlyName: r.friendly_name, pending: r.pending, held: r.held })),
    deadLettered: rows[0]?.dead_lettered ?? 0,
  };
}

/** Every column of a message but its payload (read as null): what an envelope needs. */
function columnsWithoutPayload(sql: SqlClient) {
  return sql`m.workspace_id, m.id, m.sender_id, m.sender_name, m.recipient_id, m.recipient_name, m.template, m.priority_rank, m.correlation_id,
    null::jsonb as payload, m.state, m.accepted_at, m.expires_at, m.visible_at, m.delivery_count, m.lease_id, m.lease_claimed_at, m.lease_extensions,
    m.last_extended_at, m.last_nacked_at, m.acknowledged_at, m.outcome_summary, m.dead_lettered_at, m.in_reply_to, m.thread_id, m.traceparent`;
}

/**
 * What the recipient could claim now, in ONE read (nothing locked): per priority rank, the
 * claimable rows counted up to `countLimit` (a range of the claim index each, stopped by the
 * limit), and the claimable row accepted first (the head of each rank's range in
 * (accepted_at, id) order, then the earliest of the four), its payload not read.
 */
export async function messagesInboxOf(sql: SqlClient, p: { workspaceId: string; recipientId: string; countLimit: number }): Promise<InboxSnapshot> {
  const claimable = (rank: postgres.PendingQuery<postgres.Row[]>) => sql`
    m.workspace_id = ${p.workspaceId} and m.recipient_id = ${p.recipientId} and m.state in ('pending', 'held') and m.priority_rank = ${rank}
    and m.visible_at <= now() and m.expires_at > now()`;
  const rows = await sql<(MessageRow & { counts: Record<string, number> | null; now: Date })[]>`
    with ranks as (select rank from unnest(${[3, 2, 1, 0]}::smallint[]) as r(rank)),
    counts as (
      select r.rank, (select count(*)::int from (select 1 from messages m where ${claimable(sql`r.rank`)} limit ${p.countLimit}) capped) as n from ranks r
    ),
    heads as (
      select head.* from ranks r cross join lateral (
        select ${columnsWithoutPayload(sql)} from messages m where ${claimable(sql`r.rank`)} order by m.accepted_at, m.id limit 1
      ) head
    ),
    oldest as (select * from heads order by accepted_at, id limit 1)
    select (select json_object_agg(rank, n) from counts) as counts, now() as now, oldest.*
    from (select 1) as one left join oldest on true`;
  const row = rows[0];
  const counts = row?.counts ?? {};
  const at = (rank: number) => counts[String(rank)] ?? 0;
  return {
    claimable: { urgent: at(PRIORITY_RANK.urgent), high: at(PRIORITY_RANK.high), normal: at(PRIORITY_RANK.normal), low: at(PRIORITY_RANK.low) },
    oldest: row !== undefined && row.id != null ? toMessage(row) : null,
    now: row?.now ?? new Date(),
  };
}

/**
 * Which watched recipients had a message become claimable by time passing in (after, now], and
 * the earliest such moment still ahead: ONE read, nothing locked, any workspace (the background
 * watch of the MCP inbox subscriptions, never a request path). Per recipient, at most
 * `scanLimit` of its live rows are looked at, in claim-index order (a bounded index range
 * scan; no index on visible_at is added to the hot table for this). "By time passing": a held
 * row (its lease ran out) or a pending row whose visible_at lies after the write that set it
 * (a nack's delay: after last_nacked_at; a send's deliver_after: after accepted_at). A release
 * of a dead letter also counts (visible_at = now(), after its accepted_at): a spurious second
 * notice beside its NOTIFY, which the callers allow.
 */
export async function messagesBecameClaimable(sql: SqlClient, p: { recipients: readonly WatchedRecipient[]; after: Date; scanLimit: number }): Promise<{ due: WatchedRecipient[]; nextAt: Date | null; now: Date }> {
  const recipients = p.recipients.slice(0, 1_000);
  const [row] = await sql<{ due: [string, string][]; next_at: Date | null; now: Date }[]>`
    with watched as (
      select w.workspace_id, w.recipient_id from unnest(${recipients.map((r) => r.workspaceId)}::text[], ${recipients.map((r) => r.recipientId)}::text[]) as w(workspace_id, recipient_id)
    ),
    deferred as (
      select w.workspace_id, w.recipient_id, live.visible_at
      from watched w cross join lateral (
        select m.visible_at, m.state, m.last_nacked_at, m.accepted_at from messages m
        where m.workspace_id = w.workspace_id and m.recipient_id = w.recipient_id and m.state in ('pending', 'held') and m.expires_at > now()
        order by m.priority_rank desc nulls last, m.accepted_at, m.id
        limit ${p.scanLimit}
      ) live
      where live.state = 'held' or live.visible_at > coalesce(live.last_nacked_at, live.accepted_at)
    )
    select
      (select coalesce(json_agg(json_build_array(d.workspace_id, d.recipient_id)), '[]'::json)
         from (select distinct workspace_id, recipient_id from deferred where visible_at > ${p.after} and visible_at <= now()) d) as due,
      (select min(visible_at) from deferred where visible_at > now()) as next_at,
      now() as now`;
  return {
    due: (row?.due ?? []).map(([workspaceId, recipientId]) => ({ workspaceId, recipientId })),
    nextAt: row?.next_at ?? null,
    now: row?.now ?? new Date(),
  };
}

export async function messagesListDeadLettered(sql: SqlClient, p: { workspaceId: string; after: string | null; limit: number }): Promise<MessageRecord[]> {
  const rows = await sql<MessageRow[]>`
    select * from messages
    where workspace_id = ${p.workspaceId} and state = 'dead_lettered' and (${p.after}::text is null or id < ${p.after})
    order by id desc
    limit ${p.limit + 1}`;
  return rows.map(toMessage);
}

/** Returns a dead-lettered message to pending (count reset, visible now) with its audit row and a wake-up; null when it is not dead-lettered. */
export async function messagesRelease(sql: SqlClient, p: { workspaceId: string; messageId: string; audit: NewAuditEntry }): Promise<MessageRecord | null> {
  const [row] = await sql<(MessageRow & { woke: number })[]>`
    with changed as (
      update messages
      set state = 'pending', delivery_count = 0, visible_at = now(), dead_lettered_at = null,
          lease_id = null, lease_claimed_at = null, lease_extensions = 0, last_extended_at = null
      where workspace_id = ${p.workspaceId} and id = ${p.messageId} and state = 'dead_lettered'
      returning *
    ),
    audit as (${auditFromChanged(sql, p.audit)}),
    wake as (select pg_notify(${WAKEUP_CHANNEL}, workspace_id || ':' || recipient_id) from changed)
    select changed.*, (select count(*) from wake)::int as woke from changed`;
  return row ? toMessage(row) : null;
}

/** Deletes a dead-lettered message (its audit rows stay) with its audit row; false when it is not dead-lettered. */
export async function messagesPurge(sql: SqlClient, p: { workspaceId: string; messageId: string; audit: NewAuditEntry }): Promise<boolean> {
  const rows = await sql`
    with changed as (
      delete from messages where workspace_id = ${p.workspaceId} and id = ${p.messageId} and state = 'dead_lettered'
      returning id
    ),
    audit as (${auditFromChanged(sql, p.audit)})
    select id from changed`;
  return rows.length === 1;
}

/**
 * Withholds a message after a legal notice in ONE statement: state 'withheld' with the state it
 * had kept in withheld_from_state (a held message's lease ends), its pending and retrying webhook
 * deliveries dead ('legally_withheld'), its audit row. The message leaves the claim index (whose
 * predicate is state in ('pending', 'held')): the claim statement is untouched. Locks: the
 * message row (the UPDATE; a concurrent claim or ack of it waits, then sees the new state).
 */
export async function messagesWithhold(sql: SqlClient, p: { workspaceId: string; messageId: string; audit: NewAuditEntry }): Promise<{ kind: "withheld"; message: MessageRecord } | { kind: "already_withheld" } | { kind: "not_found" }> {
  const [row] = await sql<(Partial<MessageRow> & { found: boolean })[]>`
    with changed as (
      update messages
      set state = 'withheld', withheld_from_state = state, lease_id = case when state = 'held' then null else lease_id end
      where workspace_id = ${p.workspaceId} and id = ${p.messageId} and state <> 'withheld'
      returning *
    ),
    dead as (
      update webhook_outbox o
      set state = 'dead', dead_at = now(), last_error = 'legally_withheld', claim_token = null
      from changed
      where o.workspace_id = changed.workspace_id and o.message_id = changed.id and o.state in ('pending', 'retrying')
      returning o.id
    ),
    audit as (${auditFromChanged(sql, p.audit)})
    select exists (select 1 from messages where workspace_id = ${p.workspaceId} and id = ${p.messageId}) as found,
           (select count(*) from dead)::int as dead_deliveries, changed.*
    from (select 1) as one left join changed on true`;
  if (row?.id != null) return { kind: "withheld", message: toMessage(row as MessageRow) };
  return row?.found === true ? { kind: "already_withheld" } : { kind: "not_found" };
}

/**
 * Lifts a withholding in ONE statement: the message returns to withheld_from_state (a held one
 * to pending, visible now: its lease ended), with its audit row and a wake-up when it is
 * claimable. Null when the message is not withheld.
 */
export async function messagesRestoreWithheld(sql: SqlClient, p: { workspaceId: string; messageId: string; audit: NewAuditEntry }): Promise<MessageRecord | null> {
  const [row] = await sql<(MessageRow & { woke: number })[]>`
    with changed as (
      update messages
      set state = case when withheld_from_state = 'held' then 'pending' else withheld_from_state end,
          visible_at = case when withheld_from_state = 'held' then now() else visible_at end,
          withheld_from_state = null
      where workspace_id = ${p.workspaceId} and id = ${p.messageId} and state = 'withheld'
      returning *
    ),
    audit as (${auditFromChanged(sql, p.audit)}),
    wake as (select pg_notify(${WAKEUP_CHANNEL}, workspace_id || ':' || recipient_id) from changed where state = 'pending')
    select changed.*, (select count(*) from wake)::int as woke from changed`;
  return row ? toMessage(row) : null;
}

/**
 * Marks up to `auditIds.length` live messages past their expiry as expired, any workspace (the
 * background sweep, never on a request path), each with a `message.expired` audit row. Locks:
 * `FOR UPDATE SKIP LOCKED` over the partial expiry index, so it never waits on a claim or ack.
 */
export async function messagesExpireDue(sql: SqlClient, p: { auditIds: readonly string[] }): Promise<number> {
  if (p.auditIds.length === 0) return 0;
  const [row] = await sql<{ count: number }[]>`
    with due as (
      select workspace_id, id from messages
      where state in ('pending', 'held', 'held_for_approval') and expires_at <= now()
      order by expires_at
      limit ${p.auditIds.length}
      for update skip locked
    ),
    numbered as (select workspace_id, id, row_number() over (order by workspace_id, id) as n from due),
    expired as (
      update messages m
      set state = 'expired', lease_id = case when m.state = 'held' then m.lease_id else null end
      from numbered
      where m.workspace_id = numbered.workspace_id and m.id = numbered.id
      returning m.workspace_id, m.id, numbered.n
    ),
    audit as (
      insert into audit_log (workspace_id, id, occurred_at, activity, actor_account_id, actor_credential_id, subject_type, subject_id, message_id, details, operator_significant, request_id)
      select expired.workspace_id, a.audit_id, now(), 'message.expired', null, null, 'message', expired.id, expired.id, '{}'::jsonb, false, null
      from expired join unnest(${[...p.auditIds]}::text[]) with ordinality as a(audit_id, ord) on a.ord = expired.n
    )
    select count(*)::int as count from expired`;
  return row?.count ?? 0;
}
