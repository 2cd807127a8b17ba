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
});
