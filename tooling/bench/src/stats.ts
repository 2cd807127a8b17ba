/** Latencies in milliseconds, summarised. */
export interface LatencySummary {
  count: number;
  p50: number;
  p99: number;
  max: number;
}

/** The q-quantile (0..1) of `values` by the nearest-rank method; NaN when empty. */
export function percentile(values: readonly number[], q: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const rank = Math.min(sorted.length, Math.max(1, Math.ceil(q * sorted.length)));
  return sorted[rank - 1] as number;
}

/** count, p50, p99 and max of latencies in milliseconds. */
export function summarise(latenciesMs: readonly number[]): LatencySummary {
  let max = Number.NaN;
  for (const v of latenciesMs) if (!(v <= max)) max = v;
  return { count: latenciesMs.length, p50: percentile(latenciesMs, 0.5), p99: percentile(latenciesMs, 0.99), max };
}

/** Operations per second: `count` over `elapsedMs`; NaN when no time passed. */
export function perSecond(count: number, elapsedMs: number): number {
  return elapsedMs > 0 ? (count * 1000) / elapsedMs : Number.NaN;
}

/** `value / reference`, NaN when either is not a positive finite number. */
export function ratio(value: number, reference: number): number {
  return Number.isFinite(value) && Number.isFinite(reference) && reference > 0 ? value / reference : Number.NaN;
}
