import { DomainError, malformed } from "../errors.ts";
import { DAY_MS, SECOND_MS } from "../time/duration.ts";
import { ADMINISTRATIVE_SCOPES, OPERATIONAL_SCOPES, RETIRED_SCOPES } from "./model.ts";
import type { Scope, Tier } from "./model.ts";

/** The longest a credential of each tier may live (spec §Tiers). */
export const TIER_MAX_LIFETIME_MS: Readonly<Record<Tier, number>> = { operational: 365 * DAY_MS, administrative: 90 * DAY_MS };

/** Bounds of a rotation's overlap_window (spec §Rotation: PT1S to P1D). */
export const ROTATION_OVERLAP_BOUNDS = { minMs: SECOND_MS, maxMs: DAY_MS } as const;

const SCOPES_OF_TIER: Readonly<Record<Tier, readonly string[]>> = { operational: OPERATIONAL_SCOPES, administrative: ADMINISTRATIVE_SCOPES };
const RETIRED: readonly string[] = RETIRED_SCOPES;

/**
 * Checks the scopes requested for a new credential of `tier` and returns them without
 * duplicates, in the order given. Retired scopes cannot be requested on new credentials, and a
 * tier holds only its own scopes (spec §Scopes, §Issuing 3).
 * @throws DomainError SVC_MALFORMED_REQUEST (details.field `scopes`, plus `unknown`,
 *   `not_issuable` or `wrong_tier` listing the offending names).
 */
export function checkIssuableScopes(tier: Tier, scopes: readonly string[]): Scope[] {
  const unique = [...new Set(scopes)];
  const unknown = unique.filter((s) => !RETIRED.includes(s) && !OPERATIONAL_SCOPES.includes(s as never) && !ADMINISTRATIVE_SCOPES.includes(s as never));
  if (unknown.length > 0) throw malformed(`Unknown scope: ${unknown.join(", ")}.`, { field: "scopes", unknown });
  const retired = unique.filter((s) => RETIRED.includes(s));
  if (retired.length > 0) throw malformed(`Retired scopes cannot be requested on new credentials: ${retired.join(", ")}.`, { field: "scopes", not_issuable: retired });
  const wrongTier = unique.filter((s) => !SCOPES_OF_TIER[tier].includes(s));
  if (wrongTier.length > 0) throw malformed(`An ${tier} credential cannot hold: ${wrongTier.join(", ")}.`, { field: "scopes", wrong_tier: wrongTier, tier });
  return unique as Scope[];
}

/**
 * Refuses to rotate a credential that carries a scope the API no longer mints: its successor
 * would inherit it (spec §Rotation).
 * @throws DomainError SVC_SCOPE_NOT_ISSUABLE (details.not_issuable).
 */
export function assertRotatable(scopes: readonly string[]): void {
  const retired = scopes.filter((s) => RETIRED.includes(s));
  if (retired.length > 0) {
    throw new DomainError("SVC_SCOPE_NOT_ISSUABLE", `This credential carries scopes that are no longer issued (${retired.join(", ")}); issue a new credential instead.`, { not_issuable: retired });
  }
}

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,9})?(?:Z|[+-]\d{2}:\d{2})$/;

/**
 * The expiry of a new credential of `tier`: the requested RFC 3339 timestamp, which must be
 * after `now` and no later than now + the tier maximum; without one, now + the tier maximum.
 * @throws DomainError SVC_MALFORMED_REQUEST (details.field `expires_at`).
 */
export function resolveExpiry(tier: Tier, requested: string | undefined | null, now: Date): Date {
  const latest = new Date(now.getTime() + TIER_MAX_LIFETIME_MS[tier]);
  if (requested === undefined || requested === null) return latest;
  const at = TIMESTAMP.test(requested) ? new Date(requested) : null;
  if (at === null || Number.isNaN(at.getTime())) throw malformed("expires_at must be an RFC 3339 timestamp, e.g. 2026-06-01T00:00:00Z.", { field: "expires_at" });
  if (at.getTime() <= now.getTime()) throw malformed("expires_at must be in the future.", { field: "expires_at" });
  if (at.getTime() > latest.getTime()) {
    throw malformed(`expires_at is past the ${tier} maximum lifetime (${TIER_MAX_LIFETIME_MS[tier] / DAY_MS} days).`, { field: "expires_at", latest: latest.toISOString() });
  }
  return at;
}
