/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { describe, expect, it } from "vitest";
import type { WorkspaceStatsWire } from "../wire.ts";
import { LineChart, linePath, roundedAge, roundedTop } from "./line-chart.tsx";
import { shortDuration, statsWindowOf, WorkspaceHistory } from "./workspace-history.tsx";

const html = async (node: unknown) => String(await (node as Promise<string>));

const statsOf = (window: "PT1H" | "P1D", n: number, at: (i: number) => Partial<WorkspaceStatsWire["minutes"][number]>): WorkspaceStatsWire => ({
  window,
  ai_account_id: null,
  from: "2026-11-27T14:00:00.000Z",
  to: "2026-11-27T15:00:00.000Z",
  minutes: Array.from({ length: n }, (_, i) => ({ minute: new Date(Date.parse("2026-11-27T14:00:00Z") + i * 60_000).toISOString(), sent: 0, acknowledged: 0, dead_lettered: 0, pending: 0, oldest_pending_age_seconds: 0, ...at(i) })),
});

describe("the history charts (SVG drawn on the server)", () => {
  it("rounds the top of the scale up to 1, 2 or 5 times a power of ten (1 when there is nothing)", () => {
    expect([0, -3, Number.NaN, 0.3, 1, 3, 7, 10, 11, 240, 5000].map(roundedTop)).toEqual([1, 1, 1, 0.5, 1, 5, 10, 10, 20, 500, 5000]);
  });

  it("rounds the top of an age scale to a round duration (10 s, 30 s, minutes, hours, days)", () => {
    expect([0, 7, 11, 61, 100, 301, 1000, 3599, 3601, 40000, 86401, 200000].map(roundedAge)).toEqual([10, 10, 30, 120, 120, 600, 1800, 3600, 7200, 43200, 172800, 432000]);
  });

  it("spreads the points from the plot's left edge to its right, 0 on the baseline and the top at the top", () => {
    // The plot: x from 56 to 592, y from 134 (0) up to 8 (the top).
    expect(linePath([0, 5, 10], 10)).toBe("M56 134L324 71L592 8");
    expect(linePath([3], 10)).toBe("M56 96.2");
    expect(linePath([], 10)).toBe("");
    // Nothing beyond the top or below the baseline.
    expect(linePath([-4, 99], 10)).toBe("M56 134L592 8");
  });

  it("is named and described for a screen reader, escapes its text and carries no style attribute or script", async () => {
    const svg = await html(<LineChart id="c" title="A <b> chart" desc="Over & under" series={[{ name: "s", cls: "sent", values: [1, 2] }]} axis={["a", "b", "c"]} />);
    expect(svg).toContain('role="img"');
    expect(svg).toContain('aria-labelledby="c-title c-desc"');
    expect(svg).toContain('<title id="c-title">A &lt;b&gt; chart</title>');
    expect(svg).toContain('<desc id="c-desc">Over &amp; under</desc>');
    expect(svg).toContain('class="chart-line sent" d="M56 71L592 8"');
    expect(svg).not.toMatch(/style=|<script|on[a-z]+=/i);
  });

  it("draws a window of the minute series with its totals in words and in a table, the window picked by a GET form", async () => {
    const stats = statsOf("PT1H", 60, (i) => ({ sent: i === 10 ? 4 : 0, acknowledged: i === 12 ? 3 : 0, pending: i >= 10 ? 1 : 0, oldest_pending_age_seconds: i >= 10 ? (i - 9) * 60 : 0 }));
    const page = await html(<WorkspaceHistory stats={stats} action="/accounts/a1" />);
    expect(page).toContain('<form class="inline-form history-window" method="get" action="/accounts/a1">');
    expect(page).toContain('<option value="PT1H" selected="">The last hour</option>');
    expect(page).toContain("Over the last hour: 4 sent, 3 acknowledged, 0 dead-lettered. Busiest minute: 4.");
    expect(page).toContain("the oldest waited at most 50 min; 50 min at the last minute");
    expect(page.match(/<svg /g)).toHaveLength(3);
    expect(page.match(/class="chart-line /g)).toHaveLength(5);
    expect(page).toMatch(/<tr data-series="sent"><th scope="row">Sent<\/th><td class="num" data-total="">4<\/td>/);
    expect(page).not.toMatch(/style=|<script/i);

    const day = await html(<WorkspaceHistory stats={statsOf("P1D", 1440, () => ({}))} action="/" />);
    expect(day).toContain('<option value="P1D" selected="">The last day</option>');
    expect(day).toContain("24 h ago");
    // 1,440 points per line, a flat line on the baseline when nothing happened.
    expect(day.match(/L592 134"/g)).toHaveLength(5);
  });

  it("reads an unknown window as the hour, and writes ages short", () => {
    expect([undefined, "", "P1D", "PT2H", "p1d"].map(statsWindowOf)).toEqual(["PT1H", "PT1H", "P1D", "PT1H", "PT1H"]);
    expect([0, 59, 90, 3599, 5400].map(shortDuration)).toEqual(["0 s", "59 s", "1.5 min", "60 min", "1.5 h"]);
  });
});
