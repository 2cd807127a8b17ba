import { deleteClosedWorkspacePayloads, DELIVERY_RETENTION_MS, expireDueMessages, purgeMinuteStats, recordMinuteStats, restoreDueNotices, sealAuditChains, sweepOAuth, type CoreDeps } from "@agentq/core";
import type { PeriodicTask } from "./periodic-task.ts";

/** Intervals of the maintenance tasks, in milliseconds. */
export interface MaintenanceIntervals {
  sealAuditMs: number;
  expireMessagesMs: number;
  purgeIdempotencyMs: number;
  /** Optional (default 10 min): the purge of webhook deliveries finished more than DELIVERY_RETENTION_MS ago. */
  purgeDeliveriesMs?: number;
  /** Optional (default 1 min): the restoration of contested DMCA measures whose window opened (DESIGN §2b). */
  restoreNoticesMs?: number;
  /** Optional (default 10 min): the OAuth sweep (idle clients, long-expired authorization codes). */
  sweepOAuthMs?: number;
  /** Optional (default 1 min): the minute series' writer (DESIGN §2c Telemetry). */
  recordMinuteStatsMs?: number;
}

/** Defaults: seal every second (so the chain head trails sends by about a second), sweep every 5 s, purge every minute. */
export const DEFAULT_MAINTENANCE_INTERVALS: MaintenanceIntervals = { sealAuditMs: 1_000, expireMessagesMs: 5_000, purgeIdempotencyMs: 60_000 };

/**
 * The background maintenance of a deployment: the audit sealer (one sealer per workspace at a
 * time, under the store's seal lock, so any number of processes may run it), the message expiry
 * sweep, the idempotency-key purge, the purge of webhook deliveries delivered or dead for
 * longer than DELIVERY_RETENTION_MS (7 days), the restoration of contested DMCA measures at
 * the end of their 10 business days (unless a court action was recorded), the OAuth sweep (idle
 * clients, old codes), the purge of people's expired single-use tokens and of expired pending
 * sign-ups, the deletion of closed
 * workspaces' payloads, and the per-workspace minute series (written each minute, kept 14 days). Safe to run in every server process or in a dedicated one.
 */
export function maintenanceTasks(deps: CoreDeps, intervals: MaintenanceIntervals = DEFAULT_MAINTENANCE_INTERVALS): PeriodicTask[] {
  return [
    { name: "seal-audit-chains", intervalMs: intervals.sealAuditMs, run: () => sealAuditChains(deps) },
    { name: "expire-messages", intervalMs: intervals.expireMessagesMs, run: () => expireDueMessages(deps) },
    { name: "purge-idempotency-keys", intervalMs: intervals.purgeIdempotencyMs, run: () => deps.stores.idempotency.purgeExpired({ now: deps.clock.now(), limit: 1000 }) },
    { name: "restore-due-notices", intervalMs: intervals.restoreNoticesMs ?? 60_000, run: () => restoreDueNotices(deps) },
    { name: "purge-webhook-deliveries", intervalMs: intervals.purgeDeliveriesMs ?? 600_000, run: () => deps.stores.outbox.purgeFinished({ finishedBefore: new Date(deps.clock.now().getTime() - DELIVERY_RETENTION_MS), limit: 1000 }) },
    { name: "sweep-oauth", intervalMs: intervals.sweepOAuthMs ?? 600_000, run: () => sweepOAuth(deps) },
    // People's password-reset and invitation tokens, once expired (spent or not), are of no use.
    { name: "purge-person-tokens", intervalMs: 600_000, run: () => deps.stores.personTokens.purgeExpiredBefore({ before: deps.clock.now() }) },
    // Sign-ups whose link expired unused: their email, password hash and workspace name go too (DESIGN §2c).
    { name: "purge-pending-sign-ups", intervalMs: 600_000, run: () => deps.stores.pendingSignUps.purgeExpiredBefore({ before: deps.clock.now() }) },
    // Closed workspaces lose their message payloads 30 days after closing (DESIGN §2b).
    { name: "delete-closed-workspace-payloads", intervalMs: 600_000, run: () => deleteClosedWorkspacePayloads(deps) },
    // The minute series: each pass recounts the last two whole minutes, so a minute is written
    // about a minute after it ends even when one pass is missed; kept 14 days.
    { name: "record-minute-stats", intervalMs: intervals.recordMinuteStatsMs ?? 60_000, run: () => recordMinuteStats(deps) },
    { name: "purge-minute-stats", intervalMs: 3_600_000, run: () => purgeMinuteStats(deps) },
  ];
}
