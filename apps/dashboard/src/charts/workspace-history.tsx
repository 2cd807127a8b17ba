/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import type { Child } from "hono/jsx";
import { TableRegion } from "../components/table-region.tsx";
import type { StatsWindowWire, WorkspaceStatsWire } from "../wire.ts";
import { LocalTime } from "../components/local-time.tsx";
import { LineChart, roundedAge, type ChartSeries } from "./line-chart.tsx";

/** The windows the charts offer, as the form's choices; anything else in the address reads as the hour. */
const WINDOWS: Record<StatsWindowWire, { label: string; span: string; axis: readonly [string, string, string] }> = {
  PT1H: { label: "The last hour", span: "the last hour", axis: ["60 min ago", "30 min ago", "now"] },
  P1D: { label: "The last day", span: "the last 24 hours", axis: ["24 h ago", "12 h ago", "now"] },
};

/** The window a query parameter names: `P1D` for the day, the hour otherwise (never an error). */
export function statsWindowOf(value: string | undefined): StatsWindowWire {
  return value === "P1D" ? "P1D" : "PT1H";
}

/** A number of seconds in words short enough for an axis: "45 s", "12 min", "3.5 h". */
export function shortDuration(seconds: number): string {
  if (seconds < 60) return `${seconds} s`;
  if (seconds < 3600) return `${Math.round((seconds / 60) * 10) / 10} min`;
  return `${Math.round((seconds / 3600) * 10) / 10} h`;
}

interface Figure {
  name: string;
  /** Counters are summed over the window; gauges are not. */
  counter: boolean;
  series: ChartSeries;
  format: (n: number) => string;
}

const sum = (values: readonly number[]) => values.reduce((n, v) => n + v, 0);
const peak = (values: readonly number[]) => values.reduce((n, v) => Math.max(n, v), 0);

/**
 * The workspace's history from the minute series (`get_workspace_stats`): sent, acknowledged and
 * dead-lettered per minute on one chart, pending depth and the oldest waiting message's age on
 * two more, over the window a GET form picks (`action` keeps the page). Each chart is an SVG
 * named and described for a screen reader; the table under them gives the same figures in text.
 * `note` says what the charts cover when that is not obvious (an account's page).
 */
export function WorkspaceHistory(props: { stats: WorkspaceStatsWire; action: string; note?: Child }) {
  const window = WINDOWS[props.stats.window];
  const m = props.stats.minutes;
  const flow: Figure[] = [
    { name: "Sent", counter: true, series: { name: "Sent", cls: "sent", values: m.map((x) => x.sent) }, format: String },
    { name: "Acknowledged", counter: true, series: { name: "Acknowledged", cls: "acknowledged", values: m.map((x) => x.acknowledged) }, format: String },
    { name: "Dead-lettered", counter: true, series: { name: "Dead-lettered", cls: "dead-lettered", values: m.map((x) => x.dead_lettered) }, format: String },
  ];
  const depth: Figure = { name: "Pending", counter: false, series: { name: "Pending", cls: "pending", values: m.map((x) => x.pending) }, format: String };
  const age: Figure = { name: "Oldest waiting", counter: false, series: { name: "Oldest waiting", cls: "oldest", values: m.map((x) => x.oldest_pending_age_seconds) }, format: shortDuration };
  const totals = flow.map((f) => `${sum(f.series.values)} ${f.name.toLowerCase()}`).join(", ");
  const peakOf = (f: Figure) => f.format(peak(f.series.values));
  const latestOf = (f: Figure) => f.format(f.series.values.at(-1) ?? 0);
  return (
    <section class="history" aria-labelledby="history-heading">
      <h2 id="history-heading">History</h2>
      {props.note}
      <form class="inline-form history-window" method="get" action={props.action}>
        <div>
          <label for="history-window">Window</label>
          <select id="history-window" name="window">
            {(Object.keys(WINDOWS) as StatsWindowWire[]).map((w) => (
              <option value={w} selected={w === props.stats.window}>
                {WINDOWS[w].label}
              </option>
            ))}
          </select>
        </div>
        <button type="submit" class="secondary">
          Show
        </button>
      </form>
      <p class="hint">
        Per minute, over {window.span}: from <LocalTime at={props.stats.from} /> to <LocalTime at={props.stats.to} />. A minute is recorded about a minute after it ends.
      </p>
      <div class="charts">
        <figure class="panel chart-figure">
          <figcaption>Sent, acknowledged and dead-lettered per minute</figcaption>
          <LineChart id="chart-flow" title="Messages per minute" desc={`Over ${window.span}: ${totals}. Busiest minute: ${peak(flow.flatMap((f) => f.series.values))}.`} series={flow.map((f) => f.series)} axis={window.axis} />
          <ul class="chart-legend">
            {flow.map((f) => (
              <li>
                <span class={`swatch ${f.series.cls}`} aria-hidden="true" />
                {f.name}
              </li>
            ))}
          </ul>
        </figure>
        <figure class="panel chart-figure">
          <figcaption>Pending messages (depth)</figcaption>
          <LineChart id="chart-depth" title="Pending messages" desc={`Over ${window.span}: at most ${peakOf(depth)} pending, ${latestOf(depth)} at the last minute.`} series={[depth.series]} axis={window.axis} />
        </figure>
        <figure class="panel chart-figure">
          <figcaption>Age of the oldest waiting message</figcaption>
          <LineChart id="chart-age" title="Oldest waiting message" desc={`Over ${window.span}: the oldest waited at most ${peakOf(age)}; ${latestOf(age)} at the last minute.`} series={[age.series]} axis={window.axis} formatValue={shortDuration} roundTop={roundedAge} />
        </figure>
      </div>
      <details class="chart-numbers">
        <summary>The figures in a table</summary>
        <TableRegion label="History in figures">
          <table>
            <thead>
              <tr>
                <th scope="col">Series</th>
                <th scope="col" class="num">
                  Whole window
                </th>
                <th scope="col" class="num">
                  Highest minute
                </th>
                <th scope="col" class="num">
                  Last minute
                </th>
              </tr>
            </thead>
            <tbody>
              {[...flow, depth, age].map((f) => (
                <tr data-series={f.series.cls}>
                  <th scope="row">{f.name}</th>
                  <td class="num" data-total="">{f.counter ? sum(f.series.values) : "—"}</td>
                  <td class="num">{peakOf(f)}</td>
                  <td class="num">{latestOf(f)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </TableRegion>
      </details>
    </section>
  );
}
