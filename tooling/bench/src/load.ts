import { perSecond } from "./stats.ts";

/** What a bounded load produced. */
export interface LoadResult {
  count: number;
  elapsedMs: number;
  /** Per-operation latency in milliseconds, in completion order. */
  latencies: number[];
}

/** Progress lines on stderr. */
export type Log = (text: string) => void;

/**
 * Runs `op(i)` for i = 0, 1, ... with `inFlight` operations outstanding at a time, until
 * `maxOps` were started or `maxMs` passed (then it waits for those in flight). The first failure
 * stops the load and is thrown: the benchmark measures working requests only. Logs progress
 * every 5 s.
 */
export async function runLoad(p: { name: string; inFlight: number; maxOps: number; maxMs: number; op: (i: number) => Promise<void>; log: Log }): Promise<LoadResult> {
  const latencies: number[] = [];
  const started = performance.now();
  const deadline = started + p.maxMs;
  let next = 0;
  let failure: unknown = null;
  const progress = setInterval(() => p.log(`  ${p.name}: ${latencies.length} done, ${perSecond(latencies.length, performance.now() - started).toFixed(0)}/s`), 5_000);
  progress.unref();
  const worker = async () => {
    while (failure === null && next < p.maxOps && performance.now() < deadline) {
      const i = next++;
      const t0 = performance.now();
      try {
        await p.op(i);
      } catch (e) {
        failure ??= e;
        return;
      }
      latencies.push(performance.now() - t0);
    }
  };
  try {
    await Promise.all(Array.from({ length: p.inFlight }, worker));
  } finally {
    clearInterval(progress);
  }
  if (failure !== null) throw failure instanceof Error ? failure : new Error(`${p.name} failed: ${JSON.stringify(failure)}`);
  return { count: latencies.length, elapsedMs: performance.now() - started, latencies };
}

/** Resolves after `ms` (pacing a producer, never synchronising with the service). */
export function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
