import { describe, expect, it } from "vitest";
import { startPeriodicTasks } from "./periodic-task.ts";

describe("startPeriodicTasks", () => {
  it("runs a task repeatedly without overlapping passes, reports errors, and stop() waits for the pass in flight", async () => {
    let running = 0;
    let maxConcurrent = 0;
    let passes = 0;
    const errors: string[] = [];
    let release!: () => void;
    const thirdPassStarted = new Promise<void>((resolve) => (release = resolve));
    const loop = startPeriodicTasks(
      [
        {
          name: "slow",
          intervalMs: 1,
          run: async () => {
            running++;
            maxConcurrent = Math.max(maxConcurrent, running);
            passes++;
            if (passes === 3) release();
            await new Promise((r) => setTimeout(r, 5));
            running--;
            if (passes === 2) throw new Error("boom");
            return 1;
          },
        },
      ],
      { onError: (task) => errors.push(task) },
    );
    await thirdPassStarted;
    await loop.stop();
    expect(maxConcurrent).toBe(1);
    expect(errors).toEqual(["slow"]);
    expect(running).toBe(0);
    const after = passes;
    await new Promise((r) => setTimeout(r, 20));
    expect(passes).toBe(after);
  });

  it("runs a task at once when its wake-up source fires, and once more after a pass that a wake-up interrupted; never two passes at once", async () => {
    let wake!: () => void;
    let unsubscribed = false;
    let running = 0;
    let maxConcurrent = 0;
    // Pass n (1-based) signals start and end through these, and waits for gates[n] (when set).
    const deferred = () => {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      return { promise, resolve };
    };
    const starts = Array.from({ length: 5 }, deferred);
    const ends = Array.from({ length: 5 }, deferred);
    const gates = Array.from({ length: 5 }, deferred);
    let passes = 0;
    const loop = startPeriodicTasks(
      [
        {
          name: "woken",
          intervalMs: 3_600_000,
          wakeups: (w) => {
            wake = w;
            return () => {
              unsubscribed = true;
            };
          },
          run: async () => {
            const n = ++passes;
            running++;
            maxConcurrent = Math.max(maxConcurrent, running);
            starts[n]?.resolve();
            if (n === 2) await gates[n]?.promise;
            running--;
            ends[n]?.resolve();
            return 0;
          },
        },
      ],
      { onError: () => undefined },
    );
    wake();
    await ends[1]?.promise;
    wake();
    await starts[2]?.promise;
    // Two wake-ups during pass 2: one more pass after it, not two, and not alongside it.
    wake();
    wake();
    expect(passes).toBe(2);
    gates[2]?.resolve();
    await ends[3]?.promise;
    expect(maxConcurrent).toBe(1);
    await loop.stop();
    expect(passes).toBe(3);
    expect(unsubscribed).toBe(true);
    wake();
    expect(passes).toBe(3);
  });
});
