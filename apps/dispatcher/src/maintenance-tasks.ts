import { DELIVERY_RETENTION_MS, expireDueMessages, sealAuditChains, type CoreDeps } from "@agentq/core";
import type { PeriodicTask } from "./periodic-task.ts";

/** Intervals of the maintenance tasks, in milliseconds. */
export interface MaintenanceIntervals {
  sealAuditMs: number;
  expireMessagesMs: number;
  purgeIdempotencyMs: number;
  /** Optional (default 10 min): the purge of webhook deliveries finished more than DELIVERY_RETENTION_MS ago. */
  purgeDeliveriesMs?: number;
}

/** Defaults: seal every second (so the chain head trails sends by about a second), sweep every 5 s, purge every minute. */
export const DEFAULT_MAINTENANCE_INTERVALS: MaintenanceIntervals = { sealAuditMs: 1_000, expireMessagesMs: 5_000, purgeIdempotencyMs: 60_000 };

/**
 * The background maintenance of a deployment: the audit sealer (one sealer per workspace at a
 * time, under the store's seal lock, so any number of processes may run it), the message expiry
 * sweep, the idempotency-key purge and the purge of webhook deliveries delivered or dead for
 * longer than DELIVERY_RETENTION_MS (7 days). Safe to run in every server process or in a dedicated one.
 */
export function maintenanceTasks(deps: CoreDeps, intervals: MaintenanceIntervals = DEFAULT_MAINTENANCE_INTERVALS): PeriodicTask[] {
  return [
    { name: "seal-audit-chains", intervalMs: intervals.sealAuditMs, run: () => sealAuditChains(deps) },
    { name: "expire-messages", intervalMs: intervals.expireMessagesMs, run: () => expireDueMessages(deps) },
    { name: "purge-idempotency-keys", intervalMs: intervals.purgeIdempotencyMs, run: () => deps.stores.idempotency.purgeExpired({ now: deps.clock.now(), limit: 1000 }) },
    { name: "purge-webhook-deliveries", intervalMs: intervals.purgeDeliveriesMs ?? 600_000, run: () => deps.stores.outbox.purgeFinished({ finishedBefore: new Date(deps.clock.now().getTime() - DELIVERY_RETENTION_MS), limit: 1000 }) },
  ];
}
