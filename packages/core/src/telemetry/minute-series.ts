import { getAiAccount } from "../access/ai-accounts.ts";
import type { CoreDeps } from "../deps.ts";
import type { OperationContext } from "../operation.ts";
import type { MinuteStats } from "../ports.ts";
import { DAY_MS, HOUR_MS, MINUTE_MS } from "../time/duration.ts";

/** How long the minute series is kept (DESIGN §2c Telemetry): 14 days. */
export const MINUTE_STATS_RETENTION_MS = 14 * DAY_MS;

/** The windows GET /v1/workspaces/me/stats answers, as ISO 8601 durations. */
export const STATS_WINDOWS = ["PT1H", "P1D"] as const;
export type StatsWindow = (typeof STATS_WINDOWS)[number];

const WINDOW_MS: Record<StatsWindow, number> = { PT1H: HOUR_MS, P1D: DAY_MS };

/** One minute of GET /v1/workspaces/me/stats. */
export interface MinuteStatsView {
  minute: string;
  sent: number;
  acknowledged: number;
  dead_lettered: number;
  pending: number;
  oldest_pending_age_seconds: number;
}

/** The body of GET /v1/workspaces/me/stats. */
export interface WorkspaceStatsView {
  window: StatsWindow;
  /** The recipient whose series this is, or null for the whole workspace. */
  ai_account_id: string | null;
  from: string;
  to: string;
  minutes: MinuteStatsView[];
}

/**
 * GET /v1/workspaces/me/stats: the caller's workspace's minute series over the last hour
 * (`PT1H`, the default) or day (`P1D`): one entry per whole minute of the window, oldest first,
 * zeros where the background work recorded nothing (a workspace with no activity and nothing
 * pending). The minutes are written about a minute after they end (`recordMinuteStats`). With
 * `ai_account_id`, one account of the workspace as recipient (its own series, same pass).
 * @throws DomainError SVC_RESOURCE_NOT_FOUND (no such account in the caller's workspace).
 */
export async function getWorkspaceStats(deps: CoreDeps, ctx: OperationContext, input: { window?: StatsWindow; ai_account_id?: string }): Promise<WorkspaceStatsView> {
  const window = input.window ?? "PT1H";
  const aiAccountId = input.ai_account_id === undefined ? null : (await getAiAccount(deps.stores, ctx, input.ai_account_id)).id;
  const to = Math.floor(deps.clock.now().getTime() / MINUTE_MS) * MINUTE_MS;
  const from = to - WINDOW_MS[window];
  const stored = await deps.stores.stats.listMinutes({ workspaceId: ctx.principal.workspace.id, aiAccountId, from: new Date(from) });
  const byMinute = new Map<number, MinuteStats>(stored.map((m) => [m.minute.getTime(), m]));
  const minutes: MinuteStatsView[] = [];
  for (let at = from; at < to; at += MINUTE_MS) {
    const m = byMinute.get(at);
    minutes.push({ minute: new Date(at).toISOString(), sent: m?.sent ?? 0, acknowledged: m?.acknowledged ?? 0, dead_lettered: m?.deadLettered ?? 0, pending: m?.pending ?? 0, oldest_pending_age_seconds: m?.oldestPendingAgeSeconds ?? 0 });
  }
  return { window, ai_account_id: aiAccountId, from: new Date(from).toISOString(), to: new Date(to).toISOString(), minutes };
}

/** The background work's pass: records the last whole minutes of every workspace (`StatsStore.recordMinutes`). */
export function recordMinuteStats(deps: Pick<CoreDeps, "stores">): Promise<number> {
  return deps.stores.stats.recordMinutes();
}

/** The background work's purge: drops minutes older than MINUTE_STATS_RETENTION_MS. */
export function purgeMinuteStats(deps: Pick<CoreDeps, "stores" | "clock">): Promise<number> {
  return deps.stores.stats.purgeBefore({ before: new Date(deps.clock.now().getTime() - MINUTE_STATS_RETENTION_MS) });
}
