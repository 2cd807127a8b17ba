import type { Clock, PlanStore } from "../ports.ts";
import { effectiveLimits, type PlanLimits, type PlanName } from "./plan-limits.ts";

/** How long a process keeps a workspace's limits before reading them again. */
export const WORKSPACE_LIMITS_TTL_MS = 30_000;

interface CachedLimits {
  limits: PlanLimits & { plan: PlanName };
  fetchedAt: number;
}

// One cache per pool-bound PlanStore (that is, per process and database), so the hot paths
// (every authenticated request for the rate limit, every send for the monthly cap) do not read
// the plan row each time. A plan change reaches every process within the TTL.
const caches = new WeakMap<PlanStore, Map<string, CachedLimits>>();

/**
 * The limits in force for a workspace (its plan with its overrides), read through a per-process
 * cache of `WORKSPACE_LIMITS_TTL_MS`.
 */
export async function workspaceLimits(deps: { stores: { plans: PlanStore }; clock: Clock }, workspaceId: string): Promise<PlanLimits & { plan: PlanName }> {
  let cache = caches.get(deps.stores.plans);
  if (cache === undefined) {
    cache = new Map();
    caches.set(deps.stores.plans, cache);
  }
  const now = deps.clock.now().getTime();
  const hit = cache.get(workspaceId);
  if (hit !== undefined && now - hit.fetchedAt >= 0 && now - hit.fetchedAt < WORKSPACE_LIMITS_TTL_MS) return hit.limits;
  const limits = effectiveLimits(await deps.stores.plans.findWorkspacePlan({ workspaceId }));
  if (cache.size > 10_000) cache.clear();
  cache.set(workspaceId, { limits, fetchedAt: now });
  return limits;
}

/** Drops this process's cached limits of a workspace (after changing its plan here). */
export function forgetWorkspaceLimits(deps: { stores: { plans: PlanStore } }, workspaceId: string): void {
  caches.get(deps.stores.plans)?.delete(workspaceId);
}
