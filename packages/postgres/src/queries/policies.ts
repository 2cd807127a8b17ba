import type { ApprovalHolds, Policy, PolicyKind, PolicyListItem, Priority } from "@agentq/core";
import type { SqlClient } from "../sql-client.ts";

interface PolicyRow {
  workspace_id: string;
  id: string;
  name: string;
  version: number;
  required: boolean;
  kind: PolicyKind;
  hold_templates: string[] | null;
  hold_recipients: string[] | null;
  hold_senders: string[] | null;
  hold_priorities: string[] | null;
  require_step_up: boolean;
  body: string;
  published_at: Date;
  published_by: string | null;
}

function toPolicy(r: PolicyRow): Policy {
  const holds: ApprovalHolds | null =
    r.kind === "approval" ? { templates: r.hold_templates, recipients: r.hold_recipients, senders: r.hold_senders, priorities: r.hold_priorities as Priority[] | null, requireStepUp: r.require_step_up } : null;
  return { workspaceId: r.workspace_id, id: r.id, name: r.name, version: r.version, required: r.required, kind: r.kind, holds, body: r.body, publishedAt: r.published_at, publishedBy: r.published_by };
}

/** The version columns of a policy read (`v` is policy_versions). */
function versionColumns(sql: SqlClient) {
  return sql`v.version, v.required, v.kind, v.hold_templates, v.hold_recipients, v.hold_senders, v.hold_priorities, v.require_step_up, v.body, v.published_at, v.published_by`;
}

/**
 * Publishes the next version of the workspace's policy `name` in ONE statement: the policy row
 * is inserted (version 1, id `newId`) or, `ON CONFLICT` on the name, its current version is
 * incremented; the version row follows. The conflict path locks the policy row, so concurrent
 * publishes of one name serialise and each gets its own version.
 */
export async function policiesPublish(sql: SqlClient, p: { workspaceId: string; name: string; newId: string; required: boolean; kind: PolicyKind; holds: ApprovalHolds | null; body: string; publishedAt: Date; publishedBy: string | null }): Promise<Policy> {
  const h = p.holds;
  const [row] = await sql<PolicyRow[]>`
    with policy as (
      insert into policies (workspace_id, id, name, current_version, current_required, current_approval, created_at)
      values (${p.workspaceId}, ${p.newId}, ${p.name}, 1, ${p.required}, ${p.kind === "approval"}, ${p.publishedAt})
      on conflict (workspace_id, name) do update
        set current_version = policies.current_version + 1, current_required = excluded.current_required, current_approval = excluded.current_approval
      returning workspace_id, id, name, current_version
    ),
    version as (
      insert into policy_versions (workspace_id, policy_id, version, required, kind, hold_templates, hold_recipients, hold_senders, hold_priorities, require_step_up, body, published_at, published_by)
      select workspace_id, id, current_version, ${p.required}, ${p.kind}, ${h?.templates ?? null}::text[], ${h?.recipients ?? null}::text[], ${h?.senders ?? null}::text[],
             ${h?.priorities ?? null}::text[], ${h?.requireStepUp ?? false}, ${p.body}, ${p.publishedAt}, ${p.publishedBy} from policy
      returning *
    )
    select policy.workspace_id, policy.id, policy.name, version.version, version.required, version.kind, version.hold_templates, version.hold_recipients,
           version.hold_senders, version.hold_priorities, version.require_step_up, version.body, version.published_at, version.published_by
    from policy join version on true`;
  if (!row) throw new Error("policiesPublish: no row");
  return toPolicy(row);
}

/** The current version of the policy, or null. */
export async function policiesFindCurrent(sql: SqlClient, p: { workspaceId: string; policyId: string }): Promise<Policy | null> {
  const [row] = await sql<PolicyRow[]>`
    select p.workspace_id, p.id, p.name, ${versionColumns(sql)}
    from policies p join policy_versions v on v.workspace_id = p.workspace_id and v.policy_id = p.id and v.version = p.current_version
    where p.workspace_id = ${p.workspaceId} and p.id = ${p.policyId}`;
  return row ? toPolicy(row) : null;
}

/** The workspace's policies whose current version is of kind approval, by name (policies_approval_idx). */
export async function policiesListApproval(sql: SqlClient, p: { workspaceId: string }): Promise<Policy[]> {
  const rows = await sql<PolicyRow[]>`
    select p.workspace_id, p.id, p.name, ${versionColumns(sql)}
    from policies p join policy_versions v on v.workspace_id = p.workspace_id and v.policy_id = p.id and v.version = p.current_version
    where p.workspace_id = ${p.workspaceId} and p.current_approval
    order by p.name`;
  return rows.map(toPolicy);
}

/** A page of the workspace's policies by name, current versions with the account's acknowledgement; at most `limit + 1`. */
export async function policiesListCurrent(sql: SqlClient, p: { workspaceId: string; accountId: string; after: string | null; limit: number }): Promise<PolicyListItem[]> {
  const rows = await sql<(PolicyRow & { acknowledged_version: number | null; acknowledged_at: Date | null })[]>`
    select p.workspace_id, p.id, p.name, ${versionColumns(sql)},
           a.version as acknowledged_version, a.acknowledged_at
    from policies p
    join policy_versions v on v.workspace_id = p.workspace_id and v.policy_id = p.id and v.version = p.current_version
    left join policy_acknowledgements a on a.workspace_id = p.workspace_id and a.policy_id = p.id and a.account_id = ${p.accountId}
    where p.workspace_id = ${p.workspaceId} and (${p.after}::text is null or p.name > ${p.after})
    order by p.name
    limit ${p.limit + 1}`;
  return rows.map((r) => ({ policy: toPolicy(r), acknowledgedVersion: r.acknowledged_version, acknowledgedAt: r.acknowledged_at }));
}

/**
 * Records the account's acknowledgement of `version` when it is the current one, in ONE
 * statement. Locks: `FOR SHARE` on the policy row, so a concurrent publish (which updates it)
 * either waits for this statement's transaction or, having committed first, is what this
 * statement sees (READ COMMITTED re-reads the locked row). Returns the current version number
 * and the acknowledgement time when it was written (null when the version is not current), or
 * null when there is no such policy. The version row is read by `policyVersionsFind`: a new
 * statement, which sees a version a concurrent publish just committed.
 */
export async function policiesAcknowledge(sql: SqlClient, p: { workspaceId: string; policyId: string; accountId: string; version: number; now: Date }): Promise<{ currentVersion: number; acknowledgedAt: Date | null } | null> {
  const [row] = await sql<{ current_version: number; acknowledged_at: Date | null }[]>`
    with policy as (
      select workspace_id, id, current_version from policies
      where workspace_id = ${p.workspaceId} and id = ${p.policyId}
      for share
    ),
    ack as (
      insert into policy_acknowledgements (workspace_id, policy_id, account_id, version, acknowledged_at)
      select workspace_id, id, ${p.accountId}, current_version, ${p.now} from policy where current_version = ${p.version}
      on conflict (workspace_id, policy_id, account_id) do update set version = excluded.version, acknowledged_at = excluded.acknowledged_at
      returning acknowledged_at
    )
    select policy.current_version, (select acknowledged_at from ack) as acknowledged_at from policy`;
  return row ? { currentVersion: row.current_version, acknowledgedAt: row.acknowledged_at } : null;
}

/** One version of a policy (versions never change once published), or null. */
export async function policyVersionsFind(sql: SqlClient, p: { workspaceId: string; policyId: string; version: number }): Promise<Policy | null> {
  const [row] = await sql<PolicyRow[]>`
    select p.workspace_id, p.id, p.name, ${versionColumns(sql)}
    from policies p join policy_versions v on v.workspace_id = p.workspace_id and v.policy_id = p.id
    where p.workspace_id = ${p.workspaceId} and p.id = ${p.policyId} and v.version = ${p.version}`;
  return row ? toPolicy(row) : null;
}

/** Who acknowledged a policy: each account's last acknowledged version, by account id, `limit + 1` rows (the primary key's order). */
export async function policyAcknowledgementsList(sql: SqlClient, p: { workspaceId: string; policyId: string; after: string | null; limit: number }): Promise<{ accountId: string; version: number; acknowledgedAt: Date }[]> {
  const rows = await sql<{ account_id: string; version: number; acknowledged_at: Date }[]>`
    select account_id, version, acknowledged_at
    from policy_acknowledgements
    where workspace_id = ${p.workspaceId} and policy_id = ${p.policyId} and (${p.after}::text is null or account_id > ${p.after})
    order by account_id
    limit ${p.limit + 1}`;
  return rows.map((r) => ({ accountId: r.account_id, version: r.version, acknowledgedAt: r.acknowledged_at }));
}

/** The send gate: required policies whose current version the account has not acknowledged, by name, at most `limit`. */
export async function policiesUnacknowledgedRequired(sql: SqlClient, p: { workspaceId: string; accountId: string; limit: number }): Promise<{ policyId: string; name: string; version: number }[]> {
  const rows = await sql<{ id: string; name: string; current_version: number }[]>`
    select p.id, p.name, p.current_version
    from policies p
    left join policy_acknowledgements a on a.workspace_id = p.workspace_id and a.policy_id = p.id and a.account_id = ${p.accountId}
    where p.workspace_id = ${p.workspaceId} and p.current_required and a.version is distinct from p.current_version
    order by p.name
    limit ${p.limit}`;
  return rows.map((r) => ({ policyId: r.id, name: r.name, version: r.current_version }));
}
