import type { CoreDeps, DispatchPass, WebhookTransport } from "@agentq/core";
import { logExhausted } from "../src/log-exhausted.ts";
import { defaultDispatcherSettings, outboxDispatchTask, type OutboxDispatcherSettings } from "../src/outbox-dispatch-task.ts";
import { startPeriodicTasks } from "../src/periodic-task.ts";

/** Fast settings for tests: 10 ms polls, 500 ms timeout, retries after 20, 40, 80, 160, 200 ms (before jitter). */
export const FAST: Partial<Omit<OutboxDispatcherSettings, "transport">> = { pollIntervalMs: 10, leaseMs: 5_000, timeoutMs: 500, retry: { baseMs: 20, factor: 2, maxMs: 200 } };

/** A dispatcher loop in this process, with its passes, errors and alert log lines observable. */
export interface TestDispatcher {
  exhausted: DispatchPass["exhausted"];
  alertLines: { obj: Record<string, unknown>; msg: string }[];
  errors: unknown[];
  /** Resolves once `check` holds, checked after every pass (no sleeps). */
  until(check: () => Promise<boolean> | boolean): Promise<void>;
  stop(): Promise<void>;
}

/** Starts the outbox dispatcher task on `deps` with `transport` and FAST settings (overridable). */
export function startTestDispatcher(deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids" | "secrets">, transport: WebhookTransport, overrides: Partial<Omit<OutboxDispatcherSettings, "transport">> = {}): TestDispatcher {
  const exhausted: DispatchPass["exhausted"] = [];
  const alertLines: { obj: Record<string, unknown>; msg: string }[] = [];
  const errors: unknown[] = [];
  const waiters = new Set<() => Promise<void>>();
  const logger = { warn: (obj: object, msg: string) => alertLines.push({ obj: obj as Record<string, unknown>, msg }) };
  const task = outboxDispatchTask(deps, defaultDispatcherSettings(transport, { ...FAST, ...overrides }), (pass) => {
    exhausted.push(...pass.exhausted);
    logExhausted(logger, pass);
  });
  const wrapped = {
    ...task,
    run: async () => {
      const n = await task.run();
      for (const w of [...waiters]) await w();
      return n;
    },
  };
  const loop = startPeriodicTasks([wrapped], { onError: (_t, e) => errors.push(e) });
  return {
    exhausted,
    alertLines,
    errors,
    until(check) {
      return new Promise((resolve, reject) => {
        const w = async () => {
          try {
            if (await check()) {
              waiters.delete(w);
              resolve();
            }
          } catch (e) {
            waiters.delete(w);
            reject(e instanceof Error ? e : new Error(String(e)));
          }
        };
        waiters.add(w);
      });
    },
    stop: () => loop.stop(),
  };
}
