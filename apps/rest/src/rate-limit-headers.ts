/** The tightest rate-limit bucket of the caller, as the core reports it. */
export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Whole seconds until the window resets. */
  resetSeconds: number;
}

/**
 * Puts the caller's rate-limit state on a response (DESIGN §2): X-RateLimit-Limit,
 * X-RateLimit-Remaining and X-RateLimit-Reset (seconds), whatever the status. Every 429 also
 * gets Retry-After: the error's own when it set one, else the bucket's reset.
 */
export function applyRateLimitHeaders(res: Response, state: RateLimitState | undefined): void {
  if (state !== undefined) {
    res.headers.set("X-RateLimit-Limit", String(state.limit));
    res.headers.set("X-RateLimit-Remaining", String(Math.max(0, state.remaining)));
    res.headers.set("X-RateLimit-Reset", String(Math.max(0, Math.ceil(state.resetSeconds))));
  }
  if (res.status === 429 && !res.headers.has("Retry-After")) res.headers.set("Retry-After", String(Math.max(1, Math.ceil(state?.resetSeconds ?? 1))));
}
