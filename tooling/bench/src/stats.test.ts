import { describe, expect, it } from "vitest";
import { percentile, perSecond, ratio, summarise } from "./stats.ts";

describe("stats", () => {
  it("takes nearest-rank percentiles of unsorted values", () => {
    const values = [5, 1, 4, 2, 3, 10, 9, 8, 7, 6];
    expect(percentile(values, 0.5)).toBe(5);
    expect(percentile(values, 0.99)).toBe(10);
    expect(percentile(values, 0)).toBe(1);
    expect(percentile([], 0.5)).toBeNaN();
  });

  it("summarises latencies without reordering the input", () => {
    const values = [3, 1, 2];
    expect(summarise(values)).toEqual({ count: 3, p50: 2, p99: 3, max: 3 });
    expect(values).toEqual([3, 1, 2]);
  });

  it("computes rates and ratios, NaN where undefined", () => {
    expect(perSecond(500, 250)).toBe(2000);
    expect(perSecond(1, 0)).toBeNaN();
    expect(ratio(3, 2)).toBe(1.5);
    expect(ratio(3, 0)).toBeNaN();
    expect(ratio(Number.NaN, 2)).toBeNaN();
  });
});
