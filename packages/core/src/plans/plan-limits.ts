/** The limits of a plan. A null cap means unlimited. */
export interface PlanLimits {
  /** AI accounts that are not revoked. */
  aiAccounts: number | null;
  /** Projects (checked by `checkPlanCap(..., "projects", ...)` where projects are created). */
  projects: number | null;
  /** Messages accepted per calendar month (UTC). */
  messagesPerMonth: number | null;
  /** Requests per minute per credential. */
  credentialRequestsPerMinute: number;
  /** Requests per minute per workspace (all its credentials together). */
  workspaceRequestsPerMinute: number;
}

/** Plan names. */
export const PLAN_NAMES = ["free", "standard", "enterprise"] as const;
/** A plan name. */
export type PlanName = (typeof PLAN_NAMES)[number];

/** The plan of a workspace without a plan row. */
export const DEFAULT_PLAN: PlanName = "standard";

/**
 * Plan defaults (docs/guard-rails.md). Per-workspace overrides live in the workspace's plan row
 * (`PlanStore.setWorkspacePlan`).
 */
export const PLANS: Readonly<Record<PlanName, PlanLimits>> = {
  free: { aiAccounts: 10, projects: 3, messagesPerMonth: 10_000, credentialRequestsPerMinute: 120, workspaceRequestsPerMinute: 600 },
  standard: { aiAccounts: 100, projects: 50, messagesPerMonth: 1_000_000, credentialRequestsPerMinute: 600, workspaceRequestsPerMinute: 3_000 },
  enterprise: { aiAccounts: null, projects: null, messagesPerMonth: null, credentialRequestsPerMinute: 3_000, workspaceRequestsPerMinute: 20_000 },
};

/** A workspace's plan row: its plan and any per-workspace overrides of the plan's limits. */
export interface WorkspacePlan {
  workspaceId: string;
  plan: PlanName;
  /** Limits that differ from the plan's (absent: the plan's value). */
  overrides: Partial<PlanLimits>;
}

/** The limits in force for a workspace: its plan's, with its overrides applied. */
export function effectiveLimits(row: WorkspacePlan | null): PlanLimits & { plan: PlanName } {
  const plan = row?.plan ?? DEFAULT_PLAN;
  const defaults = PLANS[plan] ?? PLANS[DEFAULT_PLAN];
  const o = row?.overrides ?? {};
  return {
    plan,
    aiAccounts: o.aiAccounts !== undefined ? o.aiAccounts : defaults.aiAccounts,
    projects: o.projects !== undefined ? o.projects : defaults.projects,
    messagesPerMonth: o.messagesPerMonth !== undefined ? o.messagesPerMonth : defaults.messagesPerMonth,
    credentialRequestsPerMinute: o.credentialRequestsPerMinute ?? defaults.credentialRequestsPerMinute,
    workspaceRequestsPerMinute: o.workspaceRequestsPerMinute ?? defaults.workspaceRequestsPerMinute,
  };
}
