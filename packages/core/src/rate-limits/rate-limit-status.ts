/** The caller's rate-limit state after a request: the tightest of its buckets. */
export interface RateLimitStatus {
  /** Which bucket is the tightest: the credential's or the workspace's. */
  bucket: "credential" | "workspace";
  /** Requests the bucket allows per window. */
  limit: number;
  /** Requests left in the current window (0 when empty). */
  remaining: number;
  /** Whole seconds until the window resets (at least 1). */
  resetSeconds: number;
}
