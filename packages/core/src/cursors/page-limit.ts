import { malformed } from "../errors.ts";

/** Page size of list routes when the caller names none (spec §Limits). */
export const DEFAULT_PAGE_LIMIT = 50;
/** Largest page size; larger requests are clamped silently. */
export const MAX_PAGE_LIMIT = 100;

/**
 * The page size of a list request: default 50, clamped silently to 1..100 (spec §Conventions 1).
 * Accepts an integer or a string of decimal digits (query strings arrive as text).
 * @throws DomainError SVC_MALFORMED_REQUEST (details.field `limit`) when it is not an integer.
 */
export function parsePageLimit(raw: unknown): number {
  if (raw === undefined || raw === null || raw === "") return DEFAULT_PAGE_LIMIT;
  let n: number;
  if (typeof raw === "number") n = raw;
  else if (typeof raw === "string" && /^[+-]?\d{1,15}$/.test(raw.trim())) n = Number(raw.trim());
  else throw malformed("limit must be an integer.", { field: "limit" });
  if (!Number.isSafeInteger(n)) throw malformed("limit must be an integer.", { field: "limit" });
  return Math.min(MAX_PAGE_LIMIT, Math.max(1, n));
}
