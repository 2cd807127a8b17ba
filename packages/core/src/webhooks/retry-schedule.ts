import { MINUTE_MS, SECOND_MS } from "../time/duration.ts";

/**
 * The backoff between attempts of one delivery: after the n-th failed attempt (n >= 1) the next
 * is due after `baseMs * factor^(n-1)`, capped at `maxMs`, times a uniform jitter in [0.5, 1.0)
 * ("equal jitter": never sooner than half the step, so a failing receiver is not hammered, and
 * retries of many deliveries spread out).
 */
export interface RetrySchedule {
  baseMs: number;
  factor: number;
  maxMs: number;
}

/** Defaults: 30 s, 2 min, 8 min, 32 min, 2 h 8 min (each before jitter): five retries over about three hours. */
export const DEFAULT_RETRY_SCHEDULE: RetrySchedule = { baseMs: 30 * SECOND_MS, factor: 4, maxMs: 180 * MINUTE_MS };

/** The delay before the attempt after `failedAttempts` failures; `random` in [0, 1). */
export function retryDelayMs(schedule: RetrySchedule, failedAttempts: number, random: number): number {
  const step = Math.min(schedule.maxMs, schedule.baseMs * schedule.factor ** Math.max(0, failedAttempts - 1));
  return Math.round(step * (0.5 + 0.5 * Math.min(Math.max(random, 0), 1)));
}
