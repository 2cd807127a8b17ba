import { DEFAULT_DISPATCH_LIMITS, DEFAULT_RETRY_SCHEDULE, dispatchDueDeliveries, type CoreDeps, type DispatchPass, type DispatchSettings } from "@agentq/core";
import type { PeriodicTask } from "./periodic-task.ts";

/** Settings of the outbox dispatcher loop. */
export interface OutboxDispatcherSettings extends DispatchSettings {
  /**
   * How often an idle dispatcher looks for due deliveries: the slow fallback poll when `wakeups`
   * is given (retries coming due, a notification lost), else the only trigger.
   */
  pollIntervalMs: number;
  /** "A send queued deliveries" signals (LISTEN/NOTIFY in PostgreSQL: `listenForOutboxDeliveries`); returns the unsubscriber. */
  wakeups?: (wake: () => void) => () => Promise<void> | void;
}

/** Full batches handled back to back before the loop yields to its interval again. */
const MAX_PASSES_PER_RUN = 20;

/**
 * Defaults around a transport: 20 per pass, 5 s timeout, 60 s lease, a fallback poll every 5 s
 * (the composition roots wake the dispatcher on LISTEN/NOTIFY: `wakeups`), DEFAULT_RETRY_SCHEDULE.
 */
export function defaultDispatcherSettings(transport: DispatchSettings["transport"], overrides: Partial<Omit<OutboxDispatcherSettings, "transport">> = {}): OutboxDispatcherSettings {
  return { transport, ...DEFAULT_DISPATCH_LIMITS, retry: DEFAULT_RETRY_SCHEDULE, random: Math.random, pollIntervalMs: 5_000, ...overrides };
}

/**
 * The outbox dispatcher as a periodic task: each run claims and attempts due deliveries
 * (`dispatchDueDeliveries`), again at once while passes come back full. Any number of
 * processes may run it against one database: claims are SKIP LOCKED and leased. `onPass` sees
 * every pass (the composition root logs the exhausted deliveries: the alert's log line).
 */
export function outboxDispatchTask(deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids" | "secrets">, settings: OutboxDispatcherSettings, onPass?: (pass: DispatchPass) => void): PeriodicTask {
  return {
    name: "dispatch-webhooks",
    intervalMs: settings.pollIntervalMs,
    ...(settings.wakeups === undefined ? {} : { wakeups: settings.wakeups }),
    async run() {
      let attempted = 0;
      for (let i = 0; i < MAX_PASSES_PER_RUN; i++) {
        const pass = await dispatchDueDeliveries(deps, settings);
        onPass?.(pass);
        attempted += pass.claimed;
        if (pass.claimed < settings.batchSize) break;
      }
      return attempted;
    },
  };
}
