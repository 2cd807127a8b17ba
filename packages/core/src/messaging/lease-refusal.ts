import { DomainError, malformed, notFound } from "../errors.ts";
import { effectiveState, type MessageRecord } from "./message.ts";
import { MESSAGING_LIMITS } from "./messaging-limits.ts";
import { legallyWithheld } from "./legally-withheld.ts";

/** The lease write that was refused, with the parameters that decide op-specific refusals. */
export type LeaseOperation =
  | { kind: "ack" }
  | { kind: "nack"; redeliverAfterMs: number }
  | { kind: "extend"; visibilityTimeoutMs: number };

/**
 * Decides why a guarded lease write (ack, nack, extend_lease) wrote nothing, from the snapshot
 * the store returned and the store clock the guard used. Pure; the one place these refusals are
 * decided, in this order:
 * - missing, or not a message the caller receives: 404 SVC_RESOURCE_NOT_FOUND;
 * - withheld after a legal notice: 451 SVC_LEGALLY_WITHHELD;
 * - past its expiry: 410 SVC_EXPIRED; dead-lettered: 409 SVC_DEAD_LETTERED;
 * - acknowledged, pending, or held under another lease: 409 SVC_LEASE_NOT_HELD;
 * - the caller's lease ran out: 409 SVC_LEASE_EXPIRED;
 * - nack: 429 SVC_NACK_RATE_LIMITED (retryAfterSeconds) within 30 s of the last nack; 400
 *   SVC_MALFORMED_REQUEST (field redeliver_after) when redelivery would not fall before expiry;
 * - extend: 429 SVC_EXTEND_RATE_LIMITED within 10 s of the last extension; 409
 *   SVC_LEASE_EXTENSION_LIMIT_EXCEEDED after 30; 409 SVC_LEASE_AT_CUMULATIVE_CEILING when the
 *   one-hour cap allows no later expiry; 400 SVC_MALFORMED_REQUEST (field visibility_timeout)
 *   when the requested expiry is not later than the current one; 409 SVC_LEASE_AT_TTL_CEILING
 *   when the new expiry would pass the message's expiry.
 * A repeated ack with the same lease is not a refusal: ack handles it before calling this.
 */
export function leaseRefusal(p: { op: LeaseOperation; leaseId: string; snapshot: MessageRecord | null; now: Date }): DomainError {
  const m = p.snapshot;
  if (m === null) return notFound("Message");
  const now = p.now.getTime();
  const state = effectiveState(m, p.now);
  if (state === "withheld") return legallyWithheld(m.id);
  if (state === "expired") return new DomainError("SVC_EXPIRED", "The message expired.", { message_id: m.id });
  if (state === "dead_lettered") return new DomainError("SVC_DEAD_LETTERED", "The message has been dead-lettered.", { message_id: m.id });
  if (state !== "held" || m.leaseId !== p.leaseId) return new DomainError("SVC_LEASE_NOT_HELD", "This lease is not the current lease on the message.", { message_id: m.id });
  if (m.visibleAt.getTime() <= now) return new DomainError("SVC_LEASE_EXPIRED", "The lease ran out; the message will be redelivered.", { message_id: m.id });
  switch (p.op.kind) {
    case "nack": {
      if (m.lastNackedAt !== null && now - m.lastNackedAt.getTime() < MESSAGING_LIMITS.nackMinIntervalMs) {
        const wait = m.lastNackedAt.getTime() + MESSAGING_LIMITS.nackMinIntervalMs - now;
        return new DomainError("SVC_NACK_RATE_LIMITED", "At most one nack per 30 seconds per message.", { message_id: m.id }, { retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) });
      }
      if (now + p.op.redeliverAfterMs >= m.expiresAt.getTime()) return malformed("redeliver_after would fall at or after the message's expiry.", { field: "redeliver_after", expires_at: m.expiresAt.toISOString() });
      break;
    }
    case "extend": {
      if (m.lastExtendedAt !== null && now - m.lastExtendedAt.getTime() < MESSAGING_LIMITS.extendMinIntervalMs) {
        const wait = m.lastExtendedAt.getTime() + MESSAGING_LIMITS.extendMinIntervalMs - now;
        return new DomainError("SVC_EXTEND_RATE_LIMITED", "At most one extend_lease per 10 seconds per message.", { message_id: m.id }, { retryAfterSeconds: Math.max(1, Math.ceil(wait / 1000)) });
      }
      if (m.leaseExtensions >= MESSAGING_LIMITS.maxExtensions) return new DomainError("SVC_LEASE_EXTENSION_LIMIT_EXCEEDED", "The lease was already extended 30 times.", { message_id: m.id, extensions: m.leaseExtensions });
      const cap = (m.leaseClaimedAt ?? p.now).getTime() + MESSAGING_LIMITS.leaseCumulativeCapMs;
      const newExpiry = Math.min(now + p.op.visibilityTimeoutMs, cap);
      if (newExpiry <= m.visibleAt.getTime()) {
        if (cap <= m.visibleAt.getTime()) {
          return new DomainError("SVC_LEASE_AT_CUMULATIVE_CEILING", "The lease is at its one-hour cumulative cap.", { message_id: m.id, ceiling: new Date(cap).toISOString() });
        }
        return malformed("visibility_timeout would not move the lease expiry later.", { field: "visibility_timeout", lease_expires_at: m.visibleAt.toISOString() });
      }
      if (newExpiry > m.expiresAt.getTime()) return new DomainError("SVC_LEASE_AT_TTL_CEILING", "The extension would pass the message's expiry.", { message_id: m.id, expires_at: m.expiresAt.toISOString() });
      break;
    }
    case "ack":
      break;
  }
  // The guard refused a live lease for no reason visible in the snapshot (a concurrent write won).
  return new DomainError("SVC_LEASE_NOT_HELD", "This lease is not the current lease on the message.", { message_id: m.id });
}

/**
 * True when an extension was refused only because the caller's live lease already reaches at
 * least as far as the request would take it (now + visibility timeout), below the one-hour cap.
 * extend_lease answers such a request with the current lease (200, nothing written) rather than
 * an error: the caller already has what it asked for.
 */
export function leaseAlreadyCovers(p: { leaseId: string; snapshot: MessageRecord | null; now: Date; visibilityTimeoutMs: number }): boolean {
  const m = p.snapshot;
  if (m === null || effectiveState(m, p.now) !== "held" || m.leaseId !== p.leaseId) return false;
  const now = p.now.getTime();
  const cap = (m.leaseClaimedAt ?? p.now).getTime() + MESSAGING_LIMITS.leaseCumulativeCapMs;
  return m.visibleAt.getTime() > now && cap > m.visibleAt.getTime() && now + p.visibilityTimeoutMs <= m.visibleAt.getTime();
}
