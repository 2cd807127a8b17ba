import { DEFAULT_RETRY_SCHEDULE } from "@agentq/core";
import { createPgDeps, listenForOutboxDeliveries } from "@agentq/postgres";
import { createHttpWebhookTransport } from "@agentq/runtime";
import { pino, type Logger } from "pino";
import postgres from "postgres";
import type { DispatcherEnv } from "./env.ts";
import { maintenanceTasks } from "./maintenance-tasks.ts";
import { defaultDispatcherSettings, outboxDispatchTask } from "./outbox-dispatch-task.ts";
import { startPeriodicTasks } from "./periodic-task.ts";
import { loadDispatcherSecrets } from "./process-secrets.ts";
import { logExhausted } from "./log-exhausted.ts";

/** A running standalone dispatcher. */
export interface DispatcherProcess {
  logger: Logger;
  /** Stops the loops (waiting for passes in flight) and closes the pool. */
  stop(): Promise<void>;
}

/**
 * Runs a standalone dispatcher: the webhook outbox dispatcher and the background maintenance
 * (sealer, expiry sweep, idempotency purge) over DATABASE_URL, with the server's secrets.
 * `main.ts` passes only the environment; `allowLoopbackForTests` exists for the tests that
 * spawn a dispatcher against a receiver on 127.0.0.1 through their own entry script.
 */
export function startDispatcherProcess(env: DispatcherEnv, options: { allowLoopbackForTests?: boolean } = {}): DispatcherProcess {
  if (env.databaseUrl === null) throw new Error("DATABASE_URL is required: the dispatcher joins the database the server uses.");
  const logger = pino({ level: env.logLevel, base: { service: "agentq-dispatcher" } });
  const secrets = loadDispatcherSecrets(env);
  const sql = postgres(env.databaseUrl, { max: 10, onnotice: () => undefined, connection: { application_name: "agentq-dispatcher" } });
  const deps = Object.assign(createPgDeps({ sql, secrets }), { publicBaseUrl: env.publicBaseUrl, previousLogKeys: env.previousLogKeys });
  const transport = createHttpWebhookTransport(options.allowLoopbackForTests === true ? { allowLoopbackForTests: true } : {});
  const settings = defaultDispatcherSettings(transport, {
    wakeups: (wake) => listenForOutboxDeliveries(sql, wake),
    ...(env.pollIntervalMs === null ? {} : { pollIntervalMs: env.pollIntervalMs }),
    ...(env.leaseMs === null ? {} : { leaseMs: env.leaseMs }),
    ...(env.timeoutMs === null ? {} : { timeoutMs: env.timeoutMs }),
    ...(env.retryBaseMs === null ? {} : { retry: { ...DEFAULT_RETRY_SCHEDULE, baseMs: env.retryBaseMs } }),
  });
  const loop = startPeriodicTasks([outboxDispatchTask(deps, settings, (pass) => logExhausted(logger, pass)), ...maintenanceTasks(deps)], {
    onError: (task, error) => logger.error({ err: error, task }, "background task failed"),
    onWork: (task, count) => logger.debug({ task, count }, "background task did work"),
  });
  // The loop's timers are unref'd (they must not keep a server alive on their own): this process exists to run them.
  const keepAlive = setInterval(() => undefined, 60_000);
  logger.info({ poll_ms: settings.pollIntervalMs, lease_ms: settings.leaseMs, timeout_ms: settings.timeoutMs, retry_base_ms: settings.retry.baseMs }, "dispatcher running");
  return {
    logger,
    async stop() {
      clearInterval(keepAlive);
      await loop.stop();
      await deps.close();
      await sql.end({ timeout: 5 });
    },
  };
}
