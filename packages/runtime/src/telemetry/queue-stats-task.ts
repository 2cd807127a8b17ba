import { queueStatsRead } from "@agentq/postgres";
import type postgres from "postgres";
import type { ServiceMetrics } from "./prometheus-metrics.ts";

/**
 * Refreshes the metrics gauges from `queueStatsRead` every `intervalMs` (and once at start), in
 * the one process that runs the background work: one statement a few times a minute, never per
 * request or per scrape. A failed read leaves the gauges as they were (their
 * `agentq_queue_stats_timestamp_seconds` then ages) and is reported to `onError`.
 */
export function startQueueStatsTask(sql: postgres.Sql, metrics: ServiceMetrics, o: { intervalMs: number; onError: (error: unknown) => void }): { stop(): Promise<void> } {
  let running: Promise<void> | null = null;
  const refresh = () => {
    if (running !== null) return;
    running = queueStatsRead(sql)
      .then((stats) => metrics.queueStats(stats), o.onError)
      .finally(() => {
        running = null;
      });
  };
  refresh();
  const timer = setInterval(refresh, o.intervalMs);
  timer.unref();
  return {
    stop: async () => {
      clearInterval(timer);
      await running;
    },
  };
}
