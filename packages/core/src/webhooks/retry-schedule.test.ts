import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_SCHEDULE, retryDelayMs } from "./retry-schedule.ts";

const CAP_MS = 3 * 60 * 60 * 1000;

/** The default steps before jitter, written out rather than recomputed: 30 s, 2 min, 8 min, 32 min, 2 h 8 min, then the 3 h cap. */
function expectedStepMs(failedAttempts: number): number {
  const steps = [30_000, 120_000, 480_000, 1_920_000, 7_680_000];
  return steps[failedAttempts - 1] ?? CAP_MS;
}

const attempts = fc.integer({ min: 1, max: 60 });
/** A value of Math.random(): [0, 1). */
const random = fc.double({ min: 0, max: 1, maxExcluded: true, noNaN: true });

describe("retryDelayMs with DEFAULT_RETRY_SCHEDULE", () => {
  it("is the step of the attempt times a jitter factor in [0.5, 1), to the millisecond", () => {
    fc.assert(
      fc.property(attempts, random, (n, r) => {
        const step = expectedStepMs(n);
        const delay = retryDelayMs(DEFAULT_RETRY_SCHEDULE, n, r);
        expect(Number.isInteger(delay)).toBe(true);
        expect(delay).toBeGreaterThanOrEqual(step / 2);
        // Rounding to whole milliseconds may reach the step itself for r just below 1, never more.
        expect(delay).toBeLessThanOrEqual(step);
        expect(Math.abs(delay - step * (0.5 + 0.5 * r))).toBeLessThanOrEqual(0.5);
      }),
      { numRuns: 2000 },
    );
  });

  it("is exactly half the step at random 0 and just under the step near 1, for every attempt up to the cap", () => {
    for (let n = 1; n <= 6; n++) {
      const step = expectedStepMs(n);
      expect(retryDelayMs(DEFAULT_RETRY_SCHEDULE, n, 0), `attempt ${n}`).toBe(step / 2);
      expect(retryDelayMs(DEFAULT_RETRY_SCHEDULE, n, 0.999), `attempt ${n}`).toBe(Math.round(step * 0.9995));
    }
  });

  it("never exceeds the 3 h cap, however many attempts failed", () => {
    fc.assert(
      fc.property(fc.integer({ min: 6, max: 10_000 }), random, (n, r) => {
        const delay = retryDelayMs(DEFAULT_RETRY_SCHEDULE, n, r);
        expect(delay).toBeGreaterThanOrEqual(CAP_MS / 2);
        expect(delay).toBeLessThanOrEqual(CAP_MS);
      }),
    );
    // The fifth retry is the last below the cap; the sixth step (8 h 32 min before the cap) is capped.
    expect(retryDelayMs(DEFAULT_RETRY_SCHEDULE, 5, 0)).toBe(7_680_000 / 2);
    expect(retryDelayMs(DEFAULT_RETRY_SCHEDULE, 6, 0)).toBe(CAP_MS / 2);
  });

  it("gives different delays for random values at least 1 ms of jitter apart, larger for the larger value", () => {
    fc.assert(
      fc.property(attempts, random, random, (n, a, b) => {
        const [lo, hi] = a <= b ? [a, b] : [b, a];
        const step = expectedStepMs(n);
        const delayLo = retryDelayMs(DEFAULT_RETRY_SCHEDULE, n, lo);
        const delayHi = retryDelayMs(DEFAULT_RETRY_SCHEDULE, n, hi);
        expect(delayLo).toBeLessThanOrEqual(delayHi);
        // 0.5 * step * (hi - lo) >= 1 ms before rounding: the rounded delays cannot coincide.
        if (hi - lo >= 2 / step) expect(delayLo).toBeLessThan(delayHi);
      }),
      { numRuns: 2000 },
    );
  });

  it("spreads the retries of many deliveries over the jitter window", () => {
    const randoms = Array.from({ length: 100 }, (_, i) => i / 100);
    for (const n of [1, 3, 6]) {
      const delays = new Set(randoms.map((r) => retryDelayMs(DEFAULT_RETRY_SCHEDULE, n, r)));
      expect(delays.size, `attempt ${n}`).toBe(100);
    }
  });
});
