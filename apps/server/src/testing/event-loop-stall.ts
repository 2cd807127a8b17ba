import { monitorEventLoopDelay } from "node:perf_hooks";

/** The stall bound of the hostile-input tests (DESIGN §2c: tests measure with a 1 s bound). */
export const STALL_BOUND_MS = 1_000;

/**
 * Runs `work` (started on a later tick, so a synchronous stall shows) while the event loop's delay
 * is sampled; returns what it returned and the longest delay seen, in milliseconds.
 */
export async function withEventLoopDelay<T>(work: () => T | Promise<T>): Promise<{ result: T; maxDelayMs: number }> {
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  try {
    await new Promise((r) => setTimeout(r, 20));
    const result = await new Promise<T>((resolve, reject) => {
      setTimeout(() => {
        Promise.resolve().then(work).then(resolve, reject);
      }, 0);
    });
    await new Promise((r) => setTimeout(r, 20));
    return { result, maxDelayMs: h.max / 1e6 };
  } finally {
    h.disable();
  }
}
