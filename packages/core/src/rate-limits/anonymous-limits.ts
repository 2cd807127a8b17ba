import { hashToken } from "../access/token.ts";
import type { CoreDeps } from "../deps.ts";
import { DomainError } from "../errors.ts";
import { PERSON_TOKENS_PER_HOUR } from "../people/person-tokens.ts";
import { formatDuration, HOUR_MS, MINUTE_MS } from "../time/duration.ts";

/** One limit: at most `limit` requests per key in a window of `windowMs`. */
export interface AnonymousLimit {
  limit: number;
  windowMs: number;
}

/**
 * THE settings of the limits on anonymous routes (DESIGN §2c), all in one place; docs/people.md,
 * docs/oauth.md and docs/notices.md show them. Each bucket but the last counts per client address
 * (the socket's, or the first X-Forwarded-For hop behind a trusted proxy):
 * - `sign_up`: each sign-up hashes a password and sends a mail;
 * - `verify_email`: the sign-up link's confirmation (tokens cannot be guessed; this stops hammering);
 * - `password_reset`: reset requests, whatever the email (spraying many emails from one address);
 * - `password_reset_confirm`: token confirmations (each valid one hashes a password);
 * - `oauth_register`: RFC 7591 registrations (an MCP client registers once per set-up);
 * - `notice_intake`: DSA and DMCA notices (GET /v1/notices/intake shows it);
 * - `password_reset_email`: the reset-link mails one email with an account may trigger (password
 *   resets, and sign-ups of that registered email, whose mail carries a reset link), counted per
 *   email (keyed hash of it) whoever asks, so the owner's audit chain and inbox cannot be
 *   flooded; past it the request is still 202 and nothing is done (`issuePasswordResetLink`).
 */
export const ANONYMOUS_LIMITS = {
  sign_up: { limit: 10, windowMs: HOUR_MS },
  verify_email: { limit: 30, windowMs: 15 * MINUTE_MS },
  password_reset: { limit: 30, windowMs: HOUR_MS },
  password_reset_confirm: { limit: 30, windowMs: 15 * MINUTE_MS },
  oauth_register: { limit: 20, windowMs: HOUR_MS },
  notice_intake: { limit: 5, windowMs: MINUTE_MS },
  password_reset_email: { limit: PERSON_TOKENS_PER_HOUR, windowMs: HOUR_MS },
} as const satisfies Record<string, AnonymousLimit>;

/** The name of an anonymous limit (`details.bucket` of its 429). */
export type AnonymousBucket = keyof typeof ANONYMOUS_LIMITS;

/** What counting one request gave: whether it is within the limit, and the refusal's facts. */
export interface AnonymousCount {
  allowed: boolean;
  bucket: AnonymousBucket;
  limit: number;
  /** The window as an ISO 8601 duration (`details.window`). */
  window: string;
  /** Whole seconds until the key's window ends (at least 1). */
  retryAfterSeconds: number;
}

/**
 * Counts one request of `subject` (a client address, or an email for `password_reset_email`) in
 * `bucket`, atomically and shared by every process (AnonymousLimitStore), and says whether it is
 * within the limit. Only a keyed hash of the subject reaches the store.
 */
export async function countAnonymousRequest(deps: Pick<CoreDeps, "stores" | "clock" | "secrets">, bucket: AnonymousBucket, subject: string): Promise<AnonymousCount> {
  const { limit, windowMs } = ANONYMOUS_LIMITS[bucket];
  const now = deps.clock.now();
  const key = hashToken(deps.secrets.pepper, `anonymous-limit:${bucket}:${subject}`);
  const hit = await deps.stores.anonymousLimits.hit({ bucket, key, now, windowMs, cost: 1 });
  const retryAfterSeconds = Math.max(1, Math.ceil((hit.windowEndsAt.getTime() - now.getTime()) / 1000));
  return { allowed: hit.count <= limit, bucket, limit, window: formatDuration(windowMs), retryAfterSeconds };
}

/**
 * The one call in front of an anonymous route: counts the request of `clientAddress` in `bucket`
 * and refuses it past the bucket's limit (ANONYMOUS_LIMITS). Requests without a known address
 * (in-process calls) share the address "unknown". For example, at the start of a handler:
 * `await limitAnonymousRequest(deps, "verify_email", origin.clientAddress)`.
 * @throws DomainError 429 SVC_RATE_LIMITED with details {bucket, limit, window} and Retry-After
 *   (seconds until the address's window ends).
 */
export async function limitAnonymousRequest(deps: Pick<CoreDeps, "stores" | "clock" | "secrets">, bucket: AnonymousBucket, clientAddress: string | null): Promise<void> {
  const counted = await countAnonymousRequest(deps, bucket, clientAddress ?? "unknown");
  if (counted.allowed) return;
  throw new DomainError("SVC_RATE_LIMITED", `Too many requests from this address; retry after ${counted.retryAfterSeconds} s.`, { bucket, limit: counted.limit, window: counted.window }, { retryAfterSeconds: counted.retryAfterSeconds });
}
