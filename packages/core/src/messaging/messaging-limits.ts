import { DAY_MS, HOUR_MS, SECOND_MS } from "../time/duration.ts";

/** The numeric limits of messaging (spec §Limits, DESIGN §2), in one place. */
export const MESSAGING_LIMITS = {
  /** get-pending `max`: 1..100, default 10. */
  claimMaxDefault: 10,
  claimMaxLimit: 100,
  /** Visibility timeout of a claim or an extension: PT10S..PT600S, default PT120S. */
  visibilityTimeoutMinMs: 10 * SECOND_MS,
  visibilityTimeoutMaxMs: 600 * SECOND_MS,
  visibilityTimeoutDefaultMs: 120 * SECOND_MS,
  /** Long-poll `wait`: PT0S..PT20S, default PT0S. */
  waitMaxMs: 20 * SECOND_MS,
  /** Message time to live: PT1S..P14D, default P7D. */
  ttlMinMs: SECOND_MS,
  ttlMaxMs: 14 * DAY_MS,
  ttlDefaultMs: 7 * DAY_MS,
  /** Delayed delivery: PT0S up to (not including) the ttl. */
  deliverAfterMaxMs: 14 * DAY_MS,
  /** At most one nack per 30 s per message. */
  nackMinIntervalMs: 30 * SECOND_MS,
  /** nack `redeliver_after`: PT0S.. (must fall before the message expiry). */
  redeliverAfterMaxMs: 14 * DAY_MS,
  /** At most one extension per 10 s per message. */
  extendMinIntervalMs: 10 * SECOND_MS,
  /** At most 30 extensions per lease. */
  maxExtensions: 30,
  /** A lease never reaches past its claim time plus one hour. */
  leaseCumulativeCapMs: HOUR_MS,
  /** Text limits. */
  correlationIdMaxLength: 128,
  outcomeSummaryMaxLength: 2000,
  nackReasonMaxLength: 1000,
  leaseIdMaxLength: 128,
  handOffNoteMaxLength: 1000,
  rejectReasonMaxLength: 1000,
} as const;
