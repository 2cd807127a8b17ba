import { auditEntry } from "../audit/audit-entry.ts";
import type { CoreDeps } from "../deps.ts";
import { DomainError, malformed } from "../errors.ts";
import { PLAN_NAMES, effectiveLimits, type PlanLimits, type PlanName, type WorkspacePlan } from "./plan-limits.ts";
import { forgetWorkspaceLimits } from "./workspace-limits.ts";

/** The override keys an operator names (`pnpm admin workspace plan ... --set key=value`). */
export const PLAN_OVERRIDE_KEYS: Readonly<Record<string, keyof PlanLimits>> = {
  ai_accounts: "aiAccounts",
  projects: "projects",
  messages_per_month: "messagesPerMonth",
  credential_requests_per_minute: "credentialRequestsPerMinute",
  workspace_requests_per_minute: "workspaceRequestsPerMinute",
};

const RATE_KEYS: ReadonlySet<keyof PlanLimits> = new Set(["credentialRequestsPerMinute", "workspaceRequestsPerMinute"]);

/**
 * Parses operator overrides `key=value` (value a non-negative integer, or `unlimited` for the
 * caps; rates must be positive integers).
 * @throws DomainError SVC_MALFORMED_REQUEST naming the bad override.
 */
export function parsePlanOverrides(pairs: readonly string[]): Partial<PlanLimits> {
  const overrides: Partial<PlanLimits> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf("=");
    const key = PLAN_OVERRIDE_KEYS[eq > 0 ? pair.slice(0, eq) : pair];
    const text = eq > 0 ? pair.slice(eq + 1) : "";
    if (key === undefined) throw malformed(`Unknown override ${pair}; one of ${Object.keys(PLAN_OVERRIDE_KEYS).join(", ")}.`, { field: pair });
    if (text === "unlimited" && !RATE_KEYS.has(key)) {
      (overrides as Record<string, number | null>)[key] = null;
      continue;
    }
    const n = /^\d{1,9}$/.test(text) ? Number(text) : NaN;
    if (!Number.isSafeInteger(n) || (RATE_KEYS.has(key) && n < 1)) throw malformed(`Override ${pair} needs ${RATE_KEYS.has(key) ? "a positive integer" : "an integer or unlimited"}.`, { field: pair });
    (overrides as Record<string, number | null>)[key] = n;
  }
  return overrides;
}

/**
 * Sets a workspace's plan and its overrides for the operator, with an operator-significant audit
 * row `workspace.plan_changed` (before and after), in one transaction. Takes effect in this
 * process at once and in other processes within their limits cache (30 s).
 * @throws DomainError SVC_RESOURCE_NOT_FOUND (no such workspace), SVC_MALFORMED_REQUEST (plan name).
 */
export async function setWorkspacePlan(deps: Pick<CoreDeps, "tx" | "clock" | "ids" | "stores">, input: { workspaceId: string; plan: string; overrides: Partial<PlanLimits>; reason?: string | null }): Promise<WorkspacePlan & { limits: PlanLimits }> {
  if (!(PLAN_NAMES as readonly string[]).includes(input.plan)) throw malformed(`plan must be one of ${PLAN_NAMES.join(", ")}.`, { field: "plan" });
  const plan: WorkspacePlan = { workspaceId: input.workspaceId, plan: input.plan as PlanName, overrides: input.overrides };
  const result = await deps.tx.run(async (stores) => {
    if ((await stores.workspaces.findById({ workspaceId: input.workspaceId })) === null) throw new DomainError("SVC_RESOURCE_NOT_FOUND", "Workspace not found.", { resource: "workspace" });
    const before = await stores.plans.findWorkspacePlan({ workspaceId: input.workspaceId });
    const now = deps.clock.now();
    await stores.plans.setWorkspacePlan({ plan, now });
    await stores.audit.append({
      entry: auditEntry(deps, null, {
        workspaceId: input.workspaceId,
        occurredAt: now,
        activity: "workspace.plan_changed",
        subjectType: "workspace",
        subjectId: input.workspaceId,
        details: { from: before === null ? null : { plan: before.plan, overrides: before.overrides }, to: { plan: plan.plan, overrides: plan.overrides }, reason: input.reason ?? null },
        operatorSignificant: true,
        requestId: null,
      }),
    });
    const { plan: _name, ...limits } = effectiveLimits(plan);
    return { ...plan, limits };
  });
  forgetWorkspaceLimits(deps, input.workspaceId);
  return result;
}
