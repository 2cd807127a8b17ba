import type { Page } from "playwright-core";

/** The plot's baseline (a value of 0) and its left and right edges, in the chart's SVG units (charts/line-chart.tsx). */
export const CHART_PLOT = { baseline: 134, left: 56, right: 592 } as const;

/** The points of one line of a history chart (`svg[data-chart=chart] path[data-series=series]`), left to right, in SVG units. */
export async function chartPoints(page: Page, chart: string, series: string): Promise<{ x: number; y: number }[]> {
  const d = (await page.locator(`svg[data-chart="${chart}"] path[data-series="${series}"]`).getAttribute("d")) ?? "";
  return [...d.matchAll(/[ML]([\d.]+) ([\d.]+)/g)].map((m) => ({ x: Number(m[1]), y: Number(m[2]) }));
}
