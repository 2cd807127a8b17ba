import { describe, expect, it } from "vitest";
import { defaultFaultPlan, scheduleFaults } from "./fault-schedule.ts";
import { seededRandom } from "./random.ts";

describe("scheduleFaults", () => {
  const plan = defaultFaultPlan(1);
  const count = (kinds: string[]) => kinds.reduce<Record<string, number>>((m, k) => ({ ...m, [k]: (m[k] ?? 0) + 1 }), {});

  it("schedules exactly the plan's faults, in rising due times, repeatably for a seed", () => {
    const a = scheduleFaults(plan, 60_000, seededRandom(7));
    expect(count(a.map((f) => f.kind))).toEqual(Object.fromEntries(Object.entries(plan).filter(([, n]) => n > 0)));
    expect(a.map((f) => f.dueMs)).toEqual([...a.map((f) => f.dueMs)].sort((x, y) => x - y));
    expect(scheduleFaults(plan, 60_000, seededRandom(7))).toEqual(a);
  });

  it("puts the leading kinds first, taken from the plan, without adding faults", () => {
    const s = scheduleFaults(plan, 60_000, seededRandom(7), ["server_kill", "pg_restart_immediate"]);
    expect(s.slice(0, 2).map((f) => f.kind)).toEqual(["server_kill", "pg_restart_immediate"]);
    expect(count(s.map((f) => f.kind))).toEqual(count(scheduleFaults(plan, 60_000, seededRandom(7)).map((f) => f.kind)));
  });
});
