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
  const messages = await sql<{ id: string; correlation_id: string | null; state: string; delivery_count: number; acknowledged_at: Date | null }[]>`
    select id, correlation_id, state, delivery_count, acknowledged_at from messages where workspace_id = ${workspaceId}`;
  const claims = await sql<{ message_id: string; lease_id: string; occurred_at: Date; lease_expires_at: string; actor_account_id: string | null }[]>`
    select message_id, details->>'lease_id' as lease_id, occurred_at, details->>'lease_expires_at' as lease_expires_at, actor_account_id
    from audit_log where workspace_id = ${workspaceId} and activity = 'message.claimed'`;
  const settled = await sql<{ activity: string; message_id: string; lease_id: string | null }[]>`
    select activity, message_id, details->>'lease_id' as lease_id
    from audit_log where workspace_id = ${workspaceId} and activity in ('message.sent', 'message.acknowledged', 'message.nacked')`;

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
    messages: messages.map((m) => ({ id: m.id, correlationId: m.correlation_id, state: m.state, deliveryCount: m.delivery_count, acknowledgedAt: m.acknowledged_at?.getTime() ?? null })),
    claims: claims.map((c): ClaimRow => ({ messageId: c.message_id, leaseId: c.lease_id, claimedAt: c.occurred_at.getTime(), leaseExpiresAt: Date.parse(c.lease_expires_at), accountId: c.actor_account_id })),
    sentAudit: settled.filter((r) => r.activity === "message.sent").map((r) => r.message_id),
    ackAudit: settled.filter((r) => r.activity === "message.acknowledged").map((r) => ({ messageId: r.message_id, leaseId: r.lease_id })),
    nackAudit: settled.filter((r) => r.activity === "message.nacked").map((r) => ({ messageId: r.message_id, leaseId: r.lease_id })),
    chain,
    unsealed: await countUnsealed(sql, workspaceId),
  };
}
