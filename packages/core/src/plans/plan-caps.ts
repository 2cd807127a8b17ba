import type { CoreDeps } from "../deps.ts";
import { DomainError } from "../errors.ts";
import type { PlanStore, Stores } from "../ports.ts";
import type { PlanLimits } from "./plan-limits.ts";
import { workspaceLimits } from "./workspace-limits.ts";

/** The capped resources of a plan. */
export type PlanCap = "ai_accounts" | "projects" | "messages_per_month";

/** The refusal of a hit cap: 403 SVC_PLAN_LIMIT_EXCEEDED with details {limit, cap, used}. */
export function planLimitExceeded(cap: PlanCap, limit: number, used: number, extra: Record<string, unknown> = {}): DomainError {
  return new DomainError("SVC_PLAN_LIMIT_EXCEEDED", `The workspace's plan allows ${limit} ${cap.replace(/_/g, " ")}; retrying unchanged does not help.`, { limit: cap, cap: limit, used, ...extra });
}

/**
 * Checks that one more of `cap` fits: `used` is the current count, `limit` the cap (null:
 * unlimited). Pure; for caps whose counting lives elsewhere (projects).
 * @throws DomainError SVC_PLAN_LIMIT_EXCEEDED
 */
export function checkPlanCap(cap: PlanCap, limit: number | null, used: number): void {
  if (limit !== null && used + 1 > limit) throw planLimitExceeded(cap, limit, used);
}

/** The limit of `cap` in a set of plan limits. */
export function capLimit(limits: PlanLimits, cap: PlanCap): number | null {
  return cap === "ai_accounts" ? limits.aiAccounts : cap === "projects" ? limits.projects : limits.messagesPerMonth;
}

/**
 * Checks the AI-account cap before an account is created, counting inside the creating
 * transaction (`stores`). Two concurrent creations at the cap can both pass (READ COMMITTED):
 * the cap may be overshot by the number of concurrent creations.
 * @throws DomainError SVC_PLAN_LIMIT_EXCEEDED
 */
export async function checkAccountCap(deps: Pick<CoreDeps, "stores" | "clock">, stores: Stores, workspaceId: string): Promise<void> {
  const limits = await workspaceLimits(deps, workspaceId);
  if (limits.aiAccounts === null) return;
  checkPlanCap("ai_accounts", limits.aiAccounts, await stores.plans.countLiveAccounts({ workspaceId }));
}

/** The UTC calendar month containing `at`: [from, to). */
export function utcMonthOf(at: Date): { from: Date; to: Date; label: string } {
  const y = at.getUTCFullYear();
  const m = at.getUTCMonth();
  return { from: new Date(Date.UTC(y, m, 1)), to: new Date(Date.UTC(y, m + 1, 1)), label: `${y}-${String(m + 1).padStart(2, "0")}` };
}

/** How long a process trusts its own estimate of a workspace's monthly count. */
export const MONTHLY_ESTIMATE_TTL_MS = 60_000;
/** Below this share of the cap, sends are counted locally between precise counts. */
export const MONTHLY_ESTIMATE_HEADROOM = 0.9;

interface MonthEstimate {
  month: string;
  count: number;
  countedAt: number;
}
const estimates = new WeakMap<PlanStore, Map<string, MonthEstimate>>();

/**
 * Checks the monthly cap on messages accepted (calendar month in UTC, by the core clock) before
 * a send. Keeps the send path free of a per-workspace hot row: no counter is written; the count
 * comes from the month's `message.sent` audit rows, read at most once a minute per workspace
 * and process while the estimate (last count + sends this process accepted since) stays under
 * 90% of the cap, and on every send above that (a precise check near the cap). Sends of other
 * processes within that minute are unseen below 90%, never near the cap; concurrent sends at the
 * very boundary may overshoot by the number in flight. `spend: false` (validate) checks without
 * counting the message.
 * @throws DomainError SVC_PLAN_LIMIT_EXCEEDED
 */
export async function checkMonthlyMessageCap(deps: Pick<CoreDeps, "stores" | "clock">, workspaceId: string, opts: { spend: boolean }): Promise<void> {
  const limits = await workspaceLimits(deps, workspaceId);
  const cap = limits.messagesPerMonth;
  if (cap === null) return;
  let byWorkspace = estimates.get(deps.stores.plans);
  if (byWorkspace === undefined) {
    byWorkspace = new Map();
    estimates.set(deps.stores.plans, byWorkspace);
  }
  const now = deps.clock.now();
  const month = utcMonthOf(now);
  let estimate = byWorkspace.get(workspaceId);
  const age = estimate === undefined ? Infinity : now.getTime() - estimate.countedAt;
  const trusted = estimate !== undefined && estimate.month === month.label && age >= 0 && age < MONTHLY_ESTIMATE_TTL_MS && estimate.count + 1 <= cap * MONTHLY_ESTIMATE_HEADROOM;
  if (!trusted) {
    const count = await deps.stores.plans.countMessagesAccepted({ workspaceId, from: month.from, to: month.to });
    estimate = { month: month.label, count, countedAt: now.getTime() };
    if (byWorkspace.size > 10_000) byWorkspace.clear();
    byWorkspace.set(workspaceId, estimate);
  }
  if (estimate === undefined) return;
  if (estimate.count + 1 > cap) throw planLimitExceeded("messages_per_month", cap, estimate.count, { month: month.label, resets_at: month.to.toISOString() });
  if (opts.spend) estimate.count += 1;
}
