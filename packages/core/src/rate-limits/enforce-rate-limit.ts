import type { Principal } from "../access/model.ts";
import type { CoreDeps } from "../deps.ts";
import { DomainError } from "../errors.ts";
import { workspaceLimits } from "../plans/workspace-limits.ts";
import type { RateLimiter } from "../ports.ts";
import type { RateLimitStatus } from "./rate-limit-status.ts";
import { rateLimitKey } from "../access/principal.ts";

/** The rate-limit window: one minute, aligned to the minute (fixed windows). */
export const RATE_LIMIT_WINDOW_MS = 60_000;
/** The window as the ISO 8601 duration of `details.window`. */
export const RATE_LIMIT_WINDOW = "PT1M";

/** The start of the window containing `at`. */
export function rateLimitWindowStart(at: Date): Date {
  return new Date(Math.floor(at.getTime() / RATE_LIMIT_WINDOW_MS) * RATE_LIMIT_WINDOW_MS);
}

/**
 * Counts one request of `principal` against its credential's and its workspace's per-minute
 * buckets (limits from the workspace's plan and overrides) and returns the tightest bucket's
 * state, plus the refusal when a bucket is empty: 429 SVC_RATE_LIMITED with details
 * {bucket, limit, window} and Retry-After = seconds to the window's end. `cost` 0 (validate)
 * spends nothing but is still refused when a bucket is already empty. Every request that
 * reaches the limiter counts, refused ones included, so a client that keeps hammering stays
 * refused until the window ends.
 */
export async function enforceRateLimit(deps: Pick<CoreDeps, "stores" | "clock"> & { rateLimiter: RateLimiter }, principal: Principal, cost: 0 | 1): Promise<{ status: RateLimitStatus; refusal: DomainError | null }> {
  const now = deps.clock.now();
  const windowStart = rateLimitWindowStart(now);
  const limits = await workspaceLimits(deps, principal.workspace.id);
  const counts = await deps.rateLimiter.hit({ workspaceId: principal.workspace.id, credentialId: rateLimitKey(principal), windowStart, cost });
  const resetSeconds = Math.max(1, Math.ceil((windowStart.getTime() + RATE_LIMIT_WINDOW_MS - now.getTime()) / 1000));
  const buckets = [
    { bucket: "credential" as const, limit: limits.credentialRequestsPerMinute, count: counts.credential },
    { bucket: "workspace" as const, limit: limits.workspaceRequestsPerMinute, count: counts.workspace },
  ];
  const empty = buckets.find((b) => b.count > b.limit || (cost === 0 && b.count >= b.limit));
  const tightest = empty ?? buckets.reduce((a, b) => (b.limit - b.count < a.limit - a.count ? b : a));
  const status: RateLimitStatus = { bucket: tightest.bucket, limit: tightest.limit, remaining: Math.max(0, tightest.limit - tightest.count), resetSeconds };
  const refusal =
    empty === undefined
      ? null
      : new DomainError("SVC_RATE_LIMITED", `The ${empty.bucket} rate limit of ${empty.limit} requests per minute is used up; retry after ${resetSeconds} s.`, { bucket: empty.bucket, limit: empty.limit, window: RATE_LIMIT_WINDOW }, { retryAfterSeconds: resetSeconds });
  return { status, refusal };
}
