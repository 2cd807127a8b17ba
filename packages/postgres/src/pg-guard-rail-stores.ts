import type { AnonymousLimitStore, PlanStore, Policy, PolicyStore, RateLimiter } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import { queryStore } from "./pg-query-store.ts";
import { aiAccountsCountLive, auditLogCountMessagesSent, workspacePlansFind, workspacePlansUpsert } from "./queries/plans.ts";
import { policiesAcknowledge, policiesFindCurrent, policiesListCurrent, policiesPublish, policiesListApproval, policiesUnacknowledgedRequired, policyAcknowledgementsList, policyVersionsFind } from "./queries/policies.ts";
import { rateLimitCountersHit, rateLimitCountersPurgeBefore } from "./queries/rate-limit-counters.ts";
import { anonymousLimitCountersHit, anonymousLimitCountersPurgeBefore } from "./queries/anonymous-limit-counters.ts";

/** PolicyStore on PostgreSQL, bound to a pool or to one transaction. */
export class PgPolicyStore extends queryStore({
  publish: policiesPublish, listApproval: policiesListApproval, findCurrent: policiesFindCurrent, listCurrent: policiesListCurrent,
  listAcknowledgements: policyAcknowledgementsList, unacknowledgedRequired: policiesUnacknowledgedRequired,
}) implements PolicyStore {
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
}

/** PlanStore on PostgreSQL, bound to a pool or to one transaction. */
export class PgPlanStore extends queryStore({
  findWorkspacePlan: workspacePlansFind, setWorkspacePlan: workspacePlansUpsert, countLiveAccounts: aiAccountsCountLive,
  countMessagesAccepted: auditLogCountMessagesSent,
}) implements PlanStore {}

/**
 * RateLimiter on PostgreSQL: fixed-window counters shared by every process on the database
 * (DESIGN §5). Bind it to the pool, never to a request's transaction: a hit counts at once.
 */
export class PgRateLimiter extends queryStore({ hit: rateLimitCountersHit, purgeBefore: rateLimitCountersPurgeBefore }) implements RateLimiter {}

/**
 * AnonymousLimitStore on PostgreSQL: one counter row per bucket and key, shared by every process
 * on the database (DESIGN §5). Bind it to the pool: a hit counts at once.
 */
export class PgAnonymousLimitStore extends queryStore({ hit: anonymousLimitCountersHit, purgeBefore: anonymousLimitCountersPurgeBefore }) implements AnonymousLimitStore {}
