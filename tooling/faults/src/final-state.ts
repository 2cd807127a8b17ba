import type { AuditEntry } from "@agentq/core";
import { auditLogCountUnsealed, PgAuditLog } from "@agentq/postgres";
import type postgres from "postgres";
import type { ClaimRow, FinalState } from "./history.ts";

const CHAIN_PAGE = 5_000;

/** Audit rows of the workspace not yet sealed. */
export async function countUnsealed(sql: postgres.Sql, workspaceId: string): Promise<number> {
  return auditLogCountUnsealed(sql, { workspaceId });
}

/** Messages of the workspace still pending or held, by state (`{pending: n, held: m}`; empty when drained). */
export async function countLiveByState(sql: postgres.Sql, workspaceId: string): Promise<Record<string, number>> {
  const rows = await sql<{ state: string; n: number }[]>`select state, count(*)::int as n from messages where workspace_id = ${workspaceId} and state in ('pending', 'held') group by state`;
  return Object.fromEntries(rows.map((r) => [r.state, r.n]));
}

/** Reads what the checker needs from the database, straight from the tables (not through the server). */
export async function readFinalState(sql: postgres.Sql, workspaceId: string): Promise<FinalState> {
  const messages = await sql<{ id: string; correlation_id: string | null; state: string; delivery_count: number; acknowledged_at: Date | null; recipient_id: string }[]>`
    select id, correlation_id, state, delivery_count, acknowledged_at, recipient_id from messages where workspace_id = ${workspaceId}`;
  const claims = await sql<{ message_id: string; lease_id: string; occurred_at: Date; lease_expires_at: string; actor_account_id: string | null; delivery_count: number }[]>`
    select message_id, details->>'lease_id' as lease_id, occurred_at, details->>'lease_expires_at' as lease_expires_at, actor_account_id, (details->>'delivery_count')::int as delivery_count
    from audit_log where workspace_id = ${workspaceId} and activity = 'message.claimed'`;
  const settled = await sql<{ activity: string; message_id: string; lease_id: string | null; recipient_id: string | null; from_id: string | null; to_id: string | null }[]>`
    select activity, message_id, details->>'lease_id' as lease_id, details->>'recipient_id' as recipient_id,
           details->'from'->>'ai_account_id' as from_id, details->'to'->>'ai_account_id' as to_id
    from audit_log where workspace_id = ${workspaceId} and activity in ('message.sent', 'message.acknowledged', 'message.nacked', 'message.handed_off')`;
  const sentTo = new Map(settled.filter((r) => r.activity === "message.sent").map((r) => [r.message_id, r.recipient_id]));

  const chain: AuditEntry[] = [];
  const audit = new PgAuditLog(sql, sql);
  for (let afterSeq = 0; ; ) {
    const page = await audit.readChain({ workspaceId, afterSeq, limit: CHAIN_PAGE });
    chain.push(...page);
    const last = page.at(-1);
    if (page.length < CHAIN_PAGE || last?.seq == null) break;
    afterSeq = last.seq;
  }

  return {
    messages: messages.map((m) => ({ id: m.id, correlationId: m.correlation_id, state: m.state, deliveryCount: m.delivery_count, acknowledgedAt: m.acknowledged_at?.getTime() ?? null, recipientId: m.recipient_id, sentToId: sentTo.get(m.id) ?? null })),
    claims: claims.map((c): ClaimRow => ({ messageId: c.message_id, leaseId: c.lease_id, claimedAt: c.occurred_at.getTime(), leaseExpiresAt: Date.parse(c.lease_expires_at), accountId: c.actor_account_id, deliveryCount: c.delivery_count })),
    sentAudit: settled.filter((r) => r.activity === "message.sent").map((r) => r.message_id),
    ackAudit: settled.filter((r) => r.activity === "message.acknowledged").map((r) => ({ messageId: r.message_id, leaseId: r.lease_id })),
    nackAudit: settled.filter((r) => r.activity === "message.nacked").map((r) => ({ messageId: r.message_id, leaseId: r.lease_id })),
    handOffAudit: settled.filter((r) => r.activity === "message.handed_off").map((r) => ({ messageId: r.message_id, leaseId: r.lease_id, fromAccountId: r.from_id, toAccountId: r.to_id })),
    chain,
    unsealed: await countUnsealed(sql, workspaceId),
  };
}
