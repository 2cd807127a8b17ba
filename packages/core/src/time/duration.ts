import { malformed } from "../errors.ts";

// The spec's ISO 8601 subset: P<n>D, PT<n>H, PT<n>M, PT<n>S and their combinations
// (P1DT2H30M10S). Whole numbers only: a fraction (sub-second or otherwise) is refused, never
// rounded. Weeks, months and years are refused because their length is ambiguous.
const DURATION = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;

/** Parses an ISO 8601 duration of the accepted subset into milliseconds, or null when it is not one. */
export function tryParseDurationMs(text: string): number | null {
  if (text.length > 40) return null;
  const m = DURATION.exec(text);
  if (!m || text === "P" || text.endsWith("T")) return null;
  const [, d, h, min, s] = m;
  const value = ((Number(d ?? 0) * 24 + Number(h ?? 0)) * 60 + Number(min ?? 0)) * 60 + Number(s ?? 0);
  if (!Number.isSafeInteger(value)) return null;
  return value * 1000;
}

/**
 * Parses `text` as a duration and checks it against [minMs, maxMs].
 * @throws DomainError SVC_MALFORMED_REQUEST naming `field` when it does not parse or is out of range.
 */
export function parseDurationMs(text: unknown, field: string, bounds: { minMs: number; maxMs: number }): number {
  if (typeof text !== "string") throw malformed(`${field} must be an ISO 8601 duration string.`, { field });
  const ms = tryParseDurationMs(text);
  if (ms === null) throw malformed(`${field} is not an accepted ISO 8601 duration (whole seconds, e.g. PT30S, PT5M, P1D).`, { field });
  if (ms < bounds.minMs || ms > bounds.maxMs) {
    throw malformed(`${field} must be between ${formatDuration(bounds.minMs)} and ${formatDuration(bounds.maxMs)}.`, { field, min: formatDuration(bounds.minMs), max: formatDuration(bounds.maxMs) });
  }
  return ms;
}

/** Formats whole seconds of `ms` as the shortest ISO 8601 duration of the subset (PT0S for zero). */
export function formatDuration(ms: number): string {
  let s = Math.floor(ms / 1000);
  const d = Math.floor(s / 86400);
  s -= d * 86400;
  const h = Math.floor(s / 3600);
  s -= h * 3600;
  const m = Math.floor(s / 60);
  s -= m * 60;
  let out = "P";
  if (d) out += `${d}D`;
  if (h || m || s || !d) {
    out += "T";
    if (h) out += `${h}H`;
    if (m) out += `${m}M`;
    if (s || (!h && !m)) out += `${s}S`;
  }
  return out;
}

/** Common durations in milliseconds. */
export const SECOND_MS = 1000;
export const MINUTE_MS = 60 * SECOND_MS;
export const HOUR_MS = 60 * MINUTE_MS;
export const DAY_MS = 24 * HOUR_MS;
