/** @jsxRuntime automatic @jsxImportSource hono/jsx */

/** One line of a chart: its name (the legend and the summary), its stylesheet class, a value per point. */
export interface ChartSeries {
  name: string;
  /** A class of dashboard.css (`chart-line` plus this: its colour and dash). */
  cls: string;
  values: readonly number[];
}

/** The drawing area, in the SVG's own units (it scales to its box through the stylesheet). */
const WIDTH = 600;
const HEIGHT = 160;
const LEFT = 56;
const RIGHT = 8;
const TOP = 8;
const BOTTOM = 26;

/** The smallest "round" number (1, 2 or 5 times a power of ten) at or above `max`; 1 for nothing. */
export function roundedTop(max: number): number {
  if (!(max > 0)) return 1;
  const power = 10 ** Math.floor(Math.log10(max));
  for (const step of [1, 2, 5, 10]) if (step * power >= max) return step * power;
  return 10 * power;
}

/** Round ages for the top of a scale of seconds: 10 s, 30 s, 1, 2, 5, 10, 15, 30 min, 1, 2, 3, 6, 12 h, then whole days. */
const AGE_STEPS = [10, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600, 43200, 86400];

/** The smallest round age (AGE_STEPS, then whole days rounded like `roundedTop`) at or above `seconds`. */
export function roundedAge(seconds: number): number {
  if (!(seconds > 0)) return AGE_STEPS[0] as number;
  return AGE_STEPS.find((step) => step >= seconds) ?? roundedTop(seconds / 86400) * 86400;
}

/**
 * The `d` of an SVG path through `values`, spread evenly from the plot's left edge to its right,
 * 0 on the baseline and `top` on the plot's top. Coordinates keep one decimal. Empty for no values.
 */
export function linePath(values: readonly number[], top: number): string {
  if (values.length === 0) return "";
  const plotWidth = WIDTH - LEFT - RIGHT;
  const plotHeight = HEIGHT - TOP - BOTTOM;
  const step = values.length === 1 ? 0 : plotWidth / (values.length - 1);
  const scale = top > 0 ? plotHeight / top : 0;
  const round = (n: number) => Math.round(n * 10) / 10;
  return values
    .map((v, i) => `${i === 0 ? "M" : "L"}${round(LEFT + i * step)} ${round(TOP + plotHeight - Math.min(Math.max(v, 0), top) * scale)}`)
    .join("");
}

/**
 * A line chart drawn on the server: an SVG with no script and no style attribute (the classes are
 * dashboard.css's), named by its <title> and described by its <desc> for a screen reader, with
 * the baseline, the top's value on the left and `axis` (start, middle, end) under the plot.
 */
export function LineChart(props: {
  id: string;
  title: string;
  desc: string;
  series: readonly ChartSeries[];
  axis: readonly [string, string, string];
  formatValue?: ((n: number) => string) | undefined;
  /** The top of the scale for the highest value (`roundedTop` unless given). */
  roundTop?: ((max: number) => number) | undefined;
}) {
  const max = Math.max(0, ...props.series.flatMap((s) => s.values));
  const top = (props.roundTop ?? roundedTop)(max);
  const format = props.formatValue ?? String;
  const baseline = HEIGHT - BOTTOM;
  const middle = LEFT + (WIDTH - LEFT - RIGHT) / 2;
  return (
    <svg class="chart" viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="img" aria-labelledby={`${props.id}-title ${props.id}-desc`} data-chart={props.id}>
      <title id={`${props.id}-title`}>{props.title}</title>
      <desc id={`${props.id}-desc`}>{props.desc}</desc>
      <line class="chart-grid" x1={LEFT} y1={TOP} x2={WIDTH - RIGHT} y2={TOP} />
      <line class="chart-axis" x1={LEFT} y1={baseline} x2={WIDTH - RIGHT} y2={baseline} />
      <text class="chart-label" x={LEFT - 6} y={TOP + 5} text-anchor="end">
        {format(top)}
      </text>
      <text class="chart-label" x={LEFT - 6} y={baseline + 5} text-anchor="end">
        {format(0)}
      </text>
      <text class="chart-label" x={LEFT} y={HEIGHT - 4} text-anchor="start">
        {props.axis[0]}
      </text>
      <text class="chart-label" x={middle} y={HEIGHT - 4} text-anchor="middle">
        {props.axis[1]}
      </text>
      <text class="chart-label" x={WIDTH - RIGHT} y={HEIGHT - 4} text-anchor="end">
        {props.axis[2]}
      </text>
      {props.series.map((s) => (
        <path class={`chart-line ${s.cls}`} d={linePath(s.values, top)} data-series={s.cls} />
      ))}
    </svg>
  );
}
