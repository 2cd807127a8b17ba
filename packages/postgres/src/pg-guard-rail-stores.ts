import type { AnonymousLimitStore, ApprovalHolds, PolicyKind, PlanStore, Policy, PolicyListItem, PolicyStore, RateLimiter, WorkspacePlan } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import { aiAccountsCountLive, auditLogCountMessagesSent, workspacePlansFind, workspacePlansUpsert } from "./queries/plans.ts";
import { policiesAcknowledge, policiesFindCurrent, policiesListCurrent, policiesPublish, policiesListApproval, policiesUnacknowledgedRequired, policyAcknowledgementsList, policyVersionsFind } from "./queries/policies.ts";
import { rateLimitCountersHit, rateLimitCountersPurgeBefore } from "./queries/rate-limit-counters.ts";
import { anonymousLimitCountersHit, anonymousLimitCountersPurgeBefore } from "./queries/anonymous-limit-counters.ts";
import type { SqlClient } from "./sql-client.ts";

/** PolicyStore on PostgreSQL, bound to a pool or to one transaction. */
export class PgPolicyStore implements PolicyStore {
  constructor(private readonly sql: SqlClient) {}

  publish(p: { workspaceId: string; name: string; newId: string; required: boolean; kind: PolicyKind; holds: ApprovalHolds | null; body: string; publishedAt: Date; publishedBy: string | null }): Promise<Policy> {
    return withPgErrors(() => policiesPublish(this.sql, p));
  }

  listApproval(p: { workspaceId: string }): Promise<Policy[]> {
    return withPgErrors(() => policiesListApproval(this.sql, p));
  }

  findCurrent(p: { workspaceId: string; policyId: string }): Promise<Policy | null> {
    return withPgErrors(() => policiesFindCurrent(this.sql, p));
  }

  listCurrent(p: { workspaceId: string; accountId: string; after: string | null; limit: number }): Promise<PolicyListItem[]> {
    return withPgErrors(() => policiesListCurrent(this.sql, p));
  }

  acknowledge(p: { workspaceId: string; policyId: string; accountId: string; version: number; now: Date }): Promise<{ kind: "acknowledged"; policy: Policy; acknowledgedAt: Date } | { kind: "stale"; current: Policy } | { kind: "unknown_version"; current: Policy } | { kind: "not_found" }> {
    return withPgErrors(async () => {
      const r = await policiesAcknowledge(this.sql, p);
      if (r === null) return { kind: "not_found" };
      const current = await policyVersionsFind(this.sql, { workspaceId: p.workspaceId, policyId: p.policyId, version: r.currentVersion });
      if (current === null) throw new Error("policy acknowledge: the current version row is missing");
      if (r.acknowledgedAt !== null) return { kind: "acknowledged", policy: current, acknowledgedAt: r.acknowledgedAt };
      return p.version > current.version ? { kind: "unknown_version", current } : { kind: "stale", current };
    });
  }

  listAcknowledgements(p: { workspaceId: string; policyId: string; after: string | null; limit: number }): Promise<{ accountId: string; version: number; acknowledgedAt: Date }[]> {
    return withPgErrors(() => policyAcknowledgementsList(this.sql, p));
  }

  unacknowledgedRequired(p: { workspaceId: string; accountId: string; limit: number }): Promise<{ policyId: string; name: string; version: number }[]> {
    return withPgErrors(() => policiesUnacknowledgedRequired(this.sql, p));
  }
}

/** PlanStore on PostgreSQL, bound to a pool or to one transaction. */
export class PgPlanStore implements PlanStore {
  constructor(private readonly sql: SqlClient) {}

  findWorkspacePlan(p: { workspaceId: string }): Promise<WorkspacePlan | null> {
    return withPgErrors(() => workspacePlansFind(this.sql, p));
  }

  setWorkspacePlan(p: { plan: WorkspacePlan; now: Date }): Promise<void> {
    return withPgErrors(() => workspacePlansUpsert(this.sql, p));
  }

  countLiveAccounts(p: { workspaceId: string }): Promise<number> {
    return withPgErrors(() => aiAccountsCountLive(this.sql, p));
  }

  countMessagesAccepted(p: { workspaceId: string; from: Date; to: Date }): Promise<number> {
    return withPgErrors(() => auditLogCountMessagesSent(this.sql, p));
  }
}

/**
 * RateLimiter on PostgreSQL: fixed-window counters shared by every process on the database
 * (DESIGN §5). Bind it to the pool, never to a request's transaction: a hit counts at once.
 */
export class PgRateLimiter implements RateLimiter {
  constructor(private readonly sql: SqlClient) {}

  hit(p: { workspaceId: string; credentialId: string; windowStart: Date; cost: number }): Promise<{ credential: number; workspace: number }> {
    return withPgErrors(() => rateLimitCountersHit(this.sql, p));
  }

  purgeBefore(p: { before: Date }): Promise<number> {
    return withPgErrors(() => rateLimitCountersPurgeBefore(this.sql, p));
  }
}

/**
 * AnonymousLimitStore on PostgreSQL: one counter row per bucket and key, shared by every process
 * on the database (DESIGN §5). Bind it to the pool: a hit counts at once.
 */
export class PgAnonymousLimitStore implements AnonymousLimitStore {
  constructor(private readonly sql: SqlClient) {}

  hit(p: { bucket: string; key: string; now: Date; windowMs: number; cost: number }): Promise<{ count: number; windowEndsAt: Date }> {
    return withPgErrors(() => anonymousLimitCountersHit(this.sql, p));
  }

  purgeBefore(p: { before: Date }): Promise<number> {
    return withPgErrors(() => anonymousLimitCountersPurgeBefore(this.sql, p));
  }
}
