import cluster, { type Worker } from "node:cluster";
import { availableParallelism } from "node:os";

/**
 * One process per core (node:cluster): the primary forks `count` HTTP workers that share one
 * listening port (the primary accepts and hands connections round-robin), restarts a worker that
 * dies unexpectedly, and on SIGTERM/SIGINT asks every worker to drain and exits when all have.
 * Worker 0 alone runs the background work (sealer, sweeps, dispatcher): `isBackgroundWorker`.
 * Everything the workers share already goes through PostgreSQL (DESIGN §5): leases, wake-ups
 * (one LISTEN per worker), rate limits (SVC_RATE_LIMITER=postgres), idempotency, revocation.
 */

/** The environment variable naming a worker's index (0..count-1), set by the primary. */
const WORKER_INDEX_VAR = "AGENTQ_WORKER_INDEX";

/**
 * AGENTQ_WORKERS: how many HTTP worker processes serve (an integer from 1 to 64, or `cores`, the
 * machine's available parallelism). `fallback` when unset: `cores` for the production bundle
 * (`pnpm start:prod`, the Docker image), 1 for `pnpm start`.
 * @throws on any other value (the start-up fails with the reason).
 */
export function readWorkerCount(env: NodeJS.ProcessEnv, fallback: number | "cores"): number {
  const text = env.AGENTQ_WORKERS?.trim() || String(fallback);
  if (text === "cores") return Math.max(1, availableParallelism());
  const n = Number(text);
  if (!Number.isInteger(n) || n < 1 || n > 64) throw new Error(`AGENTQ_WORKERS must be an integer from 1 to 64 or "cores", got ${JSON.stringify(text)}.`);
  return n;
}

/** This process's worker index, or null when it is not a cluster worker. */
export function workerIndex(): number | null {
  if (!cluster.isWorker) return null;
  const n = Number(process.env[WORKER_INDEX_VAR]);
  return Number.isInteger(n) ? n : null;
}

/** True where the background work runs: a single process, or worker 0 of a cluster. */
export function isBackgroundWorker(): boolean {
  const index = workerIndex();
  return index === null || index === 0;
}

/** What the primary logs with (the server's logger shape). */
export interface PrimaryLog {
  info(fields: object, message: string): void;
  warn(fields: object, message: string): void;
  error(fields: object, message: string): void;
}

/**
 * Runs this process as the primary of `count` workers (each re-runs the same entry point as a
 * cluster worker). Resolves never: the process exits 0 when every worker drained after a signal,
 * 1 when a worker failed during start-up (its stderr says why).
 */
export function superviseWorkers(count: number, log: PrimaryLog): void {
  // `listening`: the worker's server listens; a worker that exits before that failed to start
  // (bad configuration, database unreachable): the primary stops rather than loop.
  const slots = new Map<number, { worker: Worker; listening: boolean }>();
  let stopping = false;
  const fork = (index: number) => {
    const worker = cluster.fork({ [WORKER_INDEX_VAR]: String(index) });
    const slot = { worker, listening: false };
    worker.once("listening", () => {
      slot.listening = true;
    });
    slots.set(index, slot);
  };
  cluster.on("exit", (worker, code, signal) => {
    const entry = [...slots.entries()].find(([, s]) => s.worker === worker);
    if (entry === undefined) return;
    const [index, slot] = entry;
    slots.delete(index);
    if (stopping) {
      if (slots.size === 0) {
        log.info({ workers: count }, "every worker stopped");
        process.exit(process.exitCode ?? 0);
      }
      return;
    }
    if (!slot.listening) {
      log.error({ worker: index, code, signal }, "a worker failed while starting; stopping the others");
      stopping = true;
      for (const s of slots.values()) s.worker.process.kill("SIGTERM");
      if (slots.size === 0) process.exit(1);
      process.exitCode = 1;
      return;
    }
    log.warn({ worker: index, code, signal }, "a worker exited; starting another in its place");
    fork(index);
  });
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    log.info({ signal, workers: slots.size }, "draining: each worker finishes its requests and long polls");
    for (const s of slots.values()) s.worker.process.kill(signal);
    if (slots.size === 0) process.exit(0);
  };
  process.on("SIGTERM", () => stop("SIGTERM"));
  process.on("SIGINT", () => stop("SIGINT"));
  log.info({ workers: count, pid: process.pid }, "agentq primary: starting workers");
  for (let i = 0; i < count; i++) fork(i);
}

/** True in the process that should supervise `count` workers rather than serve. */
export function shouldSupervise(count: number): boolean {
  return cluster.isPrimary && count > 1;
}
