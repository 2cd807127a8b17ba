import type { PlanLimits, PlanName, WorkspacePlan } from "@agentq/core";
import type { SqlClient } from "../sql-client.ts";

/** The workspace's plan row, or null. */
export async function workspacePlansFind(sql: SqlClient, p: { workspaceId: string }): Promise<WorkspacePlan | null> {
  const [row] = await sql<{ workspace_id: string; plan: PlanName; overrides: Partial<PlanLimits> }[]>`
    select workspace_id, plan, overrides from workspace_plans where workspace_id = ${p.workspaceId}`;
  return row ? { workspaceId: row.workspace_id, plan: row.plan, overrides: row.overrides } : null;
}

/** The LISTEN/NOTIFY channel a plan change is announced on (payload: the workspace id), so every process drops its cached limits. */
export const PLAN_CHANGED_CHANNEL = "agentq_plan_changed";

/**
 * Inserts or replaces the workspace's plan row and announces the change on PLAN_CHANGED_CHANNEL
 * (delivered at commit, so listeners never re-read the old row).
 */
export async function workspacePlansUpsert(sql: SqlClient, p: { plan: WorkspacePlan; now: Date }): Promise<void> {
  await sql`
    with upserted as (
      insert into workspace_plans (workspace_id, plan, overrides, updated_at)
      values (${p.plan.workspaceId}, ${p.plan.plan}, ${sql.json(p.plan.overrides)}::jsonb, ${p.now})
      on conflict (workspace_id) do update set plan = excluded.plan, overrides = excluded.overrides, updated_at = excluded.updated_at
      returning workspace_id)
    select pg_notify(${PLAN_CHANGED_CHANNEL}, workspace_id) from upserted`;
}

/** AI accounts of the workspace that are not revoked. */
export async function aiAccountsCountLive(sql: SqlClient, p: { workspaceId: string }): Promise<number> {
  const [row] = await sql<{ n: number }[]>`select count(*)::int as n from ai_accounts where workspace_id = ${p.workspaceId} and state <> 'revoked'`;
  return row?.n ?? 0;
}

/** Messages accepted in [from, to), counted from `message.sent` audit rows over their partial index. */
export async function auditLogCountMessagesSent(sql: SqlClient, p: { workspaceId: string; from: Date; to: Date }): Promise<number> {
  const [row] = await sql<{ n: number }[]>`
    select count(*)::int as n from audit_log
    where workspace_id = ${p.workspaceId} and activity = 'message.sent' and occurred_at >= ${p.from} and occurred_at < ${p.to}`;
  return row?.n ?? 0;
}
