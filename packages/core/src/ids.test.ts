import { describe, expect, it, vi } from "vitest";
import { isUlid, ulidSource } from "./ids.ts";

describe("ulidSource", () => {
  it("makes valid ULIDs, strictly increasing, unique across sources", () => {
    const a = ulidSource();
    const b = ulidSource();
    const ids = Array.from({ length: 20_000 }, (_, i) => (i % 2 === 0 ? a : b).next());
    for (const id of ids) expect(isUlid(id)).toBe(true);
    const fromA = ids.filter((_, i) => i % 2 === 0);
    expect([...fromA].sort()).toEqual(fromA);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("draws the random part evenly over the 32 characters, across the 4 KiB pool's refills", () => {
    const counts = new Map<string, number>();
    // Each id in a millisecond of its own, so each random part is fresh (not an increment):
    // 4,000 ids take 64,000 bytes, refilling the pool 15 times.
    let t = Date.UTC(2026, 0, 1);
    const clock = vi.spyOn(Date, "now").mockImplementation(() => t++);
    const source = ulidSource();
    try {
      for (let i = 0; i < 4000; i++) {
        for (const c of source.next().slice(10)) counts.set(c, (counts.get(c) ?? 0) + 1);
      }
    } finally {
      clock.mockRestore();
    }
    expect(counts.size).toBe(32);
    const expected = (4000 * 16) / 32;
    for (const n of counts.values()) expect(Math.abs(n - expected)).toBeLessThan(expected * 0.15);
  });
});
