import { describe, expect, it } from "vitest";
import { DETECTOR_FUNCTIONS, HEURISTIC_ENRICHER, type DetectionSnapshot, type Rule } from "@agentq/core";
import { makeBacklogItem, makeBuildSession } from "@agentq/core/testing";
import { STALL_BOUND_MS, withEventLoopDelay } from "./testing/event-loop-stall.ts";

// The core's text heuristics that compared every pair of what they read (the lesson-candidate detectors,
// the enricher's conflicts) no longer stall on large windows (DESIGN §2c; measured as the event
// loop's delay, bound 1 s). Each input holds distinct texts sharing one common word, so every pair
// was compared and none is similar.

/** The event loop's longest delay (ms) while `work` runs. */
const stallOf = async (work: () => unknown) => (await withEventLoopDelay(work)).maxDelayMs;

describe("text heuristics over large windows: no stall", () => {
  const at = { workspaceId: "01J00000000000000000000WS1", projectId: "01J00000000000000000000PR1" };
  const when = new Date("2026-11-01T00:00:00Z");
  const snapshot = (over: Partial<DetectionSnapshot>): DetectionSnapshot => ({ since: new Date(0), until: new Date("2030-01-01T00:00:00Z"), sessions: [], corrections: [], newItems: [], resolvedItems: [], churn: [], ...over });
  // Distinct texts sharing one common word: every pair was compared, none is similar.
  const text = (i: number) => `common ${`w${i}a`} ${`w${i}b`} ${`w${i}c`}`;

  it("session_learning: 2,000 sessions of 3 distinct learnings each", async () => {
    const sessions = Array.from({ length: 2_000 }, (_, s) => makeBuildSession(at, { endedAt: when, learnings: Array.from({ length: 3 }, (_, l) => text(s * 3 + l)) }));
    let found = 0;
    expect(await stallOf(() => (found = DETECTOR_FUNCTIONS.session_learning(snapshot({ sessions })).length))).toBeLessThan(STALL_BOUND_MS);
    expect(found).toBe(6_000);
  });

  it("backlog_regression: 2,000 new items against 2,000 resolved ones", async () => {
    const resolvedItems = Array.from({ length: 2_000 }, (_, i) => makeBacklogItem({ ...at, number: i + 1 }, { title: text(i), status: "resolved", createdAt: new Date(0) }));
    const newItems = Array.from({ length: 2_000 }, (_, i) => makeBacklogItem({ ...at, number: 3_000 + i }, { title: text(10_000 + i), createdAt: when }));
    newItems[1_999] = { ...(newItems[1_999] as (typeof newItems)[number]), title: text(1_234) };
    let found: ReturnType<typeof DETECTOR_FUNCTIONS.backlog_regression> = [];
    expect(await stallOf(() => (found = DETECTOR_FUNCTIONS.backlog_regression(snapshot({ newItems, resolvedItems }))))).toBeLessThan(STALL_BOUND_MS);
    expect(found.map((p) => p.title)).toEqual([`Regression: ${text(1_234)}`]);
  });

  it("enricher conflicts: a rule of 12,000 characters of Do lines against 30 rules of Don't lines", async () => {
    // Whole lines up to the 12,000 characters of a rule's body.
    const body = (kind: "Do" | "Never", from: number) => {
      const lines: string[] = [];
      for (let i = from, size = 0; size + 40 < 12_000; i++) size += lines.push(`${kind}: common qq${i} rr${i}`) && (lines[lines.length - 1]?.length ?? 0) + 1;
      return lines.join("\n");
    };
    const rule = (id: string, bodyMd: string): Rule => ({ id, slug: id.toLowerCase(), title: id, bodyMd, alwaysApply: true, triggers: { paths: [], operations: [], languages: [], code_patterns: [], project_attributes: {} } }) as unknown as Rule;
    const mine = rule("R0", body("Do", 0));
    const others = Array.from({ length: 30 }, (_, r) => rule(`R${r + 1}`, body("Never", 1_000 * (r + 1))));
    let conflicts = -1;
    expect(await stallOf(() => (conflicts = HEURISTIC_ENRICHER.enrich({ rule: mine, lesson: null, others }, when).conflicts.length))).toBeLessThan(STALL_BOUND_MS);
    expect(conflicts).toBe(0);
  });
});
