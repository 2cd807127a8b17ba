// The records of usage (SESSION-STATE §9), apart from its use cases so that ports.ts can name them.

/** The figures of a usage report. */
export const USAGE_FIELDS = ["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "cost_micro_usd"] as const;
/** Usage figures (integers; cost in micro-dollars). */
export type UsageFigures = Record<(typeof USAGE_FIELDS)[number], number>;
/** No usage. */
export const NO_USAGE: Readonly<UsageFigures> = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0, cost_micro_usd: 0 };
/** Most models one report names. */
export const USAGE_MODELS_MAX = 20;

/** One stored report: the cumulative figures of a (session, model) and their difference from the previous report. */
export interface UsageReport {
  workspaceId: string;
  id: string;
  projectId: string;
  buildSessionId: string;
  aiAccountId: string;
  model: string;
  reportedAt: Date;
  cumulative: UsageFigures;
  delta: UsageFigures;
}

/** Differences summed per (session, model, UTC day), with the session's times. */
export interface UsageDayRow {
  buildSessionId: string;
  projectId: string;
  aiAccountId: string;
  model: string;
  day: Date;
  figures: UsageFigures;
  session: { startedAt: Date; endedAt: Date | null; activeSeconds: number };
}
