// The checker of a fault run: a pure function of the client-side history and the database at the
// end. Leases are judged on the database clock only: claim times and lease expiries come from the
// `message.claimed` audit rows (written by the claim statement with now()), ack and nack times
// from the server's answers (acknowledged_at, available_at: now() of the ack/nack statement) and
// from the messages table. Local clocks are never compared with database times.
import { verifyAuditChain } from "@agentq/core";
import type { ClaimRow, FinalMessage, FinalState, RunHistory, SendRecord, SettleRecord } from "./history.ts";

/**
 * Timestamps cross millisecond boundaries differently (audit occurred_at is rounded to ms,
 * to_char truncates, JavaScript Dates truncate microseconds), so two database times are
 * compared with this margin. A real violation is off by far more (a lease is 10 s or more).
 */
export const CLOCK_TOLERANCE_MS = 5;

/** The invariants the checker holds a run to; each must count 0. */
export const INVARIANTS = [
  "lost",
  "not_drained",
  "unexpected",
  "double_enqueue",
  "failed_send_committed",
  "lease_exclusivity",
  "ack_after_expiry",
  "ack_not_current_lease",
  "redelivery_after_ack",
  "redelivery_before_nack",
  "hand_off_two_holders",
  "hand_off_lost",
  "audit_sent_rows",
  "audit_claim_rows",
  "audit_chain",
] as const;

/** One invariant's name. */
export type Invariant = (typeof INVARIANTS)[number];

/** What a duplicate delivery is explained by: the lease before it expired, was nacked, or its holder never got or settled it (a crash, a lost response). */
export type DuplicateCause = "lease_expiry" | "nack" | "hand_off" | "crash";

/** One violation, with enough to find it in the data. */
export interface Violation {
  invariant: Invariant;
  messageId: string | null;
  detail: string;
}

/** The checker's verdict. */
export interface CheckReport {
  ok: boolean;
  counts: Record<Invariant, number>;
  /** Up to `MAX_EXAMPLES` violations per invariant. */
  examples: Violation[];
  duplicates: { total: number; byCause: Record<DuplicateCause, number>; observedByConsumers: number };
  checked: {
    /** Sends acknowledged to a producer (201), each followed to its delivery and ack. */
    acknowledgedSends: number;
    /** Sends whose outcome the producer never learnt but that committed (found in the database), followed too. */
    indeterminateCommitted: number;
    indeterminateNotCommitted: number;
    /** Followed messages dead-lettered after max_deliveries (allowed, reported). */
    deadLettered: number;
    messages: number;
    claims: number;
    acceptedAcks: number;
    acceptedNacks: number;
    /** Hand-offs the database accepted (message.handed_off rows), each followed along its message's chain of holders. */
    handOffs: number;
    auditRowsVerified: number;
    /** Leases ended by a nack whose answer was lost: not judged for exclusivity (their end time is unknown on the database clock). */
    leasesNotJudged: number;
  };
}

const MAX_EXAMPLES = 10;
/** The workspace default of max_deliveries (DESIGN §2); the run does not change it. */
const DEFAULT_MAX_DELIVERIES = 10;

/** Runs every check over a run's history and the final database state. Pure. */
export function checkRun(history: RunHistory, state: FinalState): CheckReport {
  const violations: Violation[] = [];
  const counts = Object.fromEntries(INVARIANTS.map((i) => [i, 0])) as Record<Invariant, number>;
  const flag = (invariant: Invariant, messageId: string | null, detail: string) => {
    counts[invariant]++;
    if (violations.filter((v) => v.invariant === invariant).length < MAX_EXAMPLES) violations.push({ invariant, messageId, detail });
  };

  const sendsByKey = new Map<string, SendRecord>(history.sends.map((s) => [s.key, s]));
  const messagesById = new Map<string, FinalMessage>(state.messages.map((m) => [m.id, m]));
  const messagesByKey = groupBy(state.messages.filter((m) => m.correlationId !== null), (m) => m.correlationId as string);
  const claimsByMessage = groupBy(state.claims, (c) => c.messageId);
  for (const list of claimsByMessage.values()) list.sort((a, b) => a.claimedAt - b.claimedAt || compare(a.leaseId, b.leaseId));
  const claimByLease = new Map<string, ClaimRow>(state.claims.map((c) => [c.leaseId, c]));
  const deliveredMessages = new Set(history.deliveries.map((d) => d.messageId));
  const deliveredLeases = new Set(history.deliveries.map((d) => d.leaseId));
  const okSettles = history.settles.filter((s) => s.outcome === "ok");
  const okAckByLease = new Map(okSettles.filter((s) => s.kind === "ack").map((s) => [s.leaseId, s]));
  const okNackByLease = new Map(okSettles.filter((s) => s.kind === "nack").map((s) => [s.leaseId, s]));
  const indeterminateLeases = new Set(history.settles.filter((s) => s.outcome === "indeterminate").map((s) => s.leaseId));
  // Nacks the database accepted (audit rows) whose answer never reached the consumer: the lease
  // ended at a time known only on the server's own clock, so it is not judged for exclusivity.
  const nackedLeases = new Set(state.nackAudit.map((n) => n.leaseId).filter((l): l is string => l !== null));
  const unseenNackLeases = new Set([...nackedLeases].filter((l) => !okNackByLease.has(l)));
  // Hand-offs likewise: one whose answer was lost ended its lease at a time the client never learnt.
  const okHandOffByLease = new Map(history.handOffs.filter((h) => h.outcome === "ok").map((h) => [h.leaseId, h]));
  const handOffByLease = new Map(state.handOffAudit.filter((h) => h.leaseId !== null).map((h) => [h.leaseId as string, h]));
  const unseenHandOffLeases = new Set([...handOffByLease.keys()].filter((l) => !okHandOffByLease.has(l)));

  // Double enqueue: one key, two messages (in the database, or two ids across one key's attempts).
  for (const [key, rows] of messagesByKey) {
    if (rows.length > 1) flag("double_enqueue", rows[0]?.id ?? null, `Idempotency-Key ${key} has ${rows.length} messages: ${rows.map((r) => r.id).join(", ")}`);
  }
  for (const s of history.sends) {
    if (s.messageIds.length > 1) flag("double_enqueue", s.messageIds[0] ?? null, `attempts of Idempotency-Key ${s.key} returned ${s.messageIds.length} message ids`);
    const rows = messagesByKey.get(s.key) ?? [];
    if (s.outcome === "ok" && s.messageId !== null && rows.length === 1 && rows[0]?.id !== s.messageId) {
      flag("double_enqueue", s.messageId, `Idempotency-Key ${s.key}: the producer got ${s.messageId}, the database holds ${rows[0]?.id}`);
    }
  }

  // Lost, not drained, failed-but-committed: every send that (may have) committed is followed.
  let indeterminateCommitted = 0;
  let indeterminateNotCommitted = 0;
  const followed: string[] = [];
  for (const s of history.sends) {
    const rows = messagesByKey.get(s.key) ?? [];
    if (s.outcome === "ok") {
      if (s.messageId === null) continue;
      if (!messagesById.has(s.messageId)) {
        flag("lost", s.messageId, `send ${s.key} was acknowledged (201) but its message is not in the database`);
        continue;
      }
      if (!deliveredMessages.has(s.messageId)) {
        const m = messagesById.get(s.messageId);
        flag("lost", s.messageId, `send ${s.key} was acknowledged (201) but no consumer ever received ${s.messageId} (it ended ${m?.state} after ${m?.deliveryCount} deliveries)`);
        continue;
      }
      followed.push(s.messageId);
    } else if (s.outcome === "indeterminate") {
      if (rows.length === 0) {
        indeterminateNotCommitted++;
        continue;
      }
      indeterminateCommitted++;
      for (const r of rows) {
        if (!deliveredMessages.has(r.id)) flag("lost", r.id, `send ${s.key} committed (outcome unknown to the producer) but no consumer ever received ${r.id}`);
        else followed.push(r.id);
      }
    } else if (rows.length > 0) {
      flag("failed_send_committed", rows[0]?.id ?? null, `send ${s.key} was refused with ${s.code ?? "?"} yet its message exists`);
    }
  }
  let deadLettered = 0;
  for (const id of followed) {
    const m = messagesById.get(id);
    if (!m || m.state === "acknowledged") continue;
    // Dead-lettering after the workspace's max_deliveries is the promised behaviour, not a loss.
    if (m.state === "dead_lettered" && m.deliveryCount >= DEFAULT_MAX_DELIVERIES) deadLettered++;
    else flag("not_drained", id, `message ${id} ended ${m.state} after ${m.deliveryCount} deliveries, not acknowledged`);
  }

  // Unexpected: a delivery or a stored message that no producer's send accounts for.
  const traceable = (messageId: string): boolean => {
    const m = messagesById.get(messageId);
    if (!m || m.correlationId === null) return false;
    const s = sendsByKey.get(m.correlationId);
    if (!s || s.outcome === "failed") return false;
    return s.outcome !== "ok" || s.messageId === messageId;
  };
  for (const id of deliveredMessages) {
    if (!traceable(id)) flag("unexpected", id, `message ${id} was delivered but no producer's send accounts for it`);
  }
  for (const d of history.deliveries) {
    const m = messagesById.get(d.messageId);
    if (m && d.correlationId !== m.correlationId) flag("unexpected", d.messageId, `delivery of ${d.messageId} carried correlation_id ${d.correlationId}, the stored message ${m.correlationId}`);
  }
  for (const m of state.messages) {
    if (!deliveredMessages.has(m.id) && !traceable(m.id)) flag("unexpected", m.id, `message ${m.id} (correlation_id ${m.correlationId}) is stored but no producer's send accounts for it`);
  }

  // Every delivery a consumer saw must be a lease the database granted (and audited).
  for (const d of history.deliveries) {
    const c = claimByLease.get(d.leaseId);
    if (!c) flag("audit_claim_rows", d.messageId, `lease ${d.leaseId} of ${d.messageId} was delivered to ${d.consumer} but has no message.claimed row`);
    else if (c.messageId !== d.messageId) flag("lease_exclusivity", d.messageId, `lease ${d.leaseId} was delivered for ${d.messageId} but granted for ${c.messageId}`);
  }

  // Lease intervals [claimed_at, min(lease_expires_at, ack time, nack time)], per message.
  const leaseEnd = (c: ClaimRow): number => {
    if (unseenNackLeases.has(c.leaseId) || unseenHandOffLeases.has(c.leaseId)) return c.claimedAt;
    let end = c.leaseExpiresAt;
    const handedOff = okHandOffByLease.get(c.leaseId);
    if (handedOff?.serverAt != null) end = Math.min(end, handedOff.serverAt);
    const ack = okAckByLease.get(c.leaseId);
    if (ack?.serverAt != null) end = Math.min(end, ack.serverAt);
    const nack = okNackByLease.get(c.leaseId);
    if (nack?.serverAt != null) end = Math.min(end, nack.serverAt - (nack.redeliverAfterMs ?? 0));
    return end;
  };
  const duplicates = { total: 0, byCause: { lease_expiry: 0, nack: 0, hand_off: 0, crash: 0 } as Record<DuplicateCause, number>, observedByConsumers: 0 };
  for (const [messageId, claims] of claimsByMessage) {
    let previous: ClaimRow | null = null;
    let latestEnd = Number.NEGATIVE_INFINITY;
    let latestHolder: ClaimRow | null = null;
    for (const c of claims) {
      if (previous !== null) {
        if (c.claimedAt < latestEnd - CLOCK_TOLERANCE_MS && latestHolder !== null) {
          flag("lease_exclusivity", messageId, `lease ${c.leaseId} (${c.accountId}) claimed at ${iso(c.claimedAt)} while lease ${latestHolder.leaseId} (${latestHolder.accountId}) was live until ${iso(latestEnd)}`);
        }
        duplicates.total++;
        duplicates.byCause[duplicateCause(previous, nackedLeases, handOffByLease, deliveredLeases, indeterminateLeases)]++;
      }
      const end = leaseEnd(c);
      if (end > latestEnd) {
        latestEnd = end;
        latestHolder = c;
      }
      previous = c;
    }
  }
  const observed = groupBy(history.deliveries, (d) => d.messageId);
  for (const list of observed.values()) duplicates.observedByConsumers += new Set(list.map((d) => d.leaseId)).size - 1;

  // Accepted acks: on a lease the database granted, before it expired, while it was the current one.
  const checkAcceptedSettle = (s: SettleRecord, at: number) => {
    const c = claimByLease.get(s.leaseId);
    const invariant: Invariant = "ack_not_current_lease";
    if (!c) return flag(invariant, s.messageId, `${s.kind} with lease ${s.leaseId} was accepted but the database never granted that lease`);
    if (at > c.leaseExpiresAt + CLOCK_TOLERANCE_MS) flag("ack_after_expiry", s.messageId, `${s.kind} with lease ${s.leaseId} accepted at ${iso(at)}, after the lease expired at ${iso(c.leaseExpiresAt)}`);
    const newer = (claimsByMessage.get(s.messageId) ?? []).find((o) => o.leaseId !== c.leaseId && o.claimedAt > c.claimedAt && o.claimedAt < at - CLOCK_TOLERANCE_MS);
    if (newer) flag(invariant, s.messageId, `${s.kind} with lease ${s.leaseId} accepted at ${iso(at)} though lease ${newer.leaseId} was claimed at ${iso(newer.claimedAt)}`);
  };
  for (const s of okSettles) {
    if (s.serverAt === null) continue;
    if (s.kind === "ack") {
      checkAcceptedSettle(s, s.serverAt);
      const nack = okNackByLease.get(s.leaseId);
      if (nack?.serverAt != null && nack.serverAt - (nack.redeliverAfterMs ?? 0) < s.serverAt) flag("ack_not_current_lease", s.messageId, `ack with lease ${s.leaseId} accepted after that lease was nacked`);
    } else {
      checkAcceptedSettle(s, s.serverAt - (s.redeliverAfterMs ?? 0));
    }
  }
  // The database's own record of the ack (it covers acks whose answer the consumer never got).
  const ackAuditByMessage = groupBy(state.ackAudit, (a) => a.messageId);
  for (const [messageId, rows] of ackAuditByMessage) {
    if (rows.length > 1) flag("ack_not_current_lease", messageId, `message ${messageId} was acknowledged ${rows.length} times (message.acknowledged rows)`);
    const m = messagesById.get(messageId);
    const claims = claimsByMessage.get(messageId) ?? [];
    const row = rows[0];
    if (!m || m.acknowledgedAt === null || !row) continue;
    const ackedAt = m.acknowledgedAt;
    const current = claims.filter((c) => c.claimedAt <= ackedAt + CLOCK_TOLERANCE_MS).at(-1);
    if (!current || current.leaseId !== row.leaseId) {
      flag("ack_not_current_lease", messageId, `message ${messageId} acknowledged at ${iso(ackedAt)} with lease ${row.leaseId}, the current lease was ${current?.leaseId ?? "none"}`);
    } else if (ackedAt > current.leaseExpiresAt + CLOCK_TOLERANCE_MS) {
      flag("ack_after_expiry", messageId, `message ${messageId} acknowledged at ${iso(ackedAt)} after lease ${current.leaseId} expired at ${iso(current.leaseExpiresAt)}`);
    }
  }

  // No claim after an accepted ack. (The accepted acks grouped by message once: filtering every
  // settle per message took minutes over the 100,000 sends of a 30-minute run.)
  const okAcksByMessage = groupBy(okSettles.filter((s) => s.kind === "ack"), (s) => s.messageId);
  for (const m of state.messages) {
    const ackTimes = [m.acknowledgedAt, ...(okAcksByMessage.get(m.id) ?? []).map((s) => s.serverAt)].filter((t): t is number => t !== null);
    if (ackTimes.length === 0) continue;
    const ackedAt = Math.min(...ackTimes);
    for (const c of claimsByMessage.get(m.id) ?? []) {
      if (c.claimedAt > ackedAt + CLOCK_TOLERANCE_MS) flag("redelivery_after_ack", m.id, `message ${m.id} claimed again (lease ${c.leaseId}) at ${iso(c.claimedAt)} after its ack at ${iso(ackedAt)}`);
    }
  }

  // No claim before a nack's redelivery time.
  for (const s of okSettles) {
    if (s.kind !== "nack" || s.serverAt === null) continue;
    const nacked = claimByLease.get(s.leaseId);
    if (!nacked) continue;
    const next = (claimsByMessage.get(s.messageId) ?? []).find((c) => c.claimedAt > nacked.claimedAt && c.leaseId !== nacked.leaseId);
    if (next && next.claimedAt < s.serverAt - CLOCK_TOLERANCE_MS) {
      flag("redelivery_before_nack", s.messageId, `message ${s.messageId} nacked until ${iso(s.serverAt)} but claimed again at ${iso(next.claimedAt)}`);
    }
  }

  // Hand-offs (DESIGN §2c): a message is never held by two accounts, and never lost between them.
  // Along each message's claims (database clock order), the account holding it must be the one it
  // is addressed to: the send's recipient, then each hand-off's new recipient. A handed-off lease
  // ends there: no ack or nack of it, and the next claim is the new recipient's with the delivery
  // count kept (one more). A hand-off the consumer was told succeeded must be in the database, and
  // the message must end addressed to the last account it was handed to.
  const settledLeases = new Set([...state.ackAudit, ...state.nackAudit].map((r) => r.leaseId).filter((l): l is string => l !== null));
  for (const h of history.handOffs) {
    if (h.outcome === "ok" && !handOffByLease.has(h.leaseId)) flag("hand_off_lost", h.messageId, `hand-off of ${h.messageId} (lease ${h.leaseId}) to ${h.to} was answered 200 but has no message.handed_off row`);
  }
  for (const h of state.handOffAudit) {
    const c = h.leaseId === null ? undefined : claimByLease.get(h.leaseId);
    if (!c) flag("hand_off_two_holders", h.messageId, `message ${h.messageId} was handed off with lease ${h.leaseId}, which the database never granted`);
    else if (c.messageId !== h.messageId) flag("hand_off_two_holders", h.messageId, `lease ${h.leaseId} of ${c.messageId} handed off ${h.messageId}`);
    if (h.leaseId !== null && settledLeases.has(h.leaseId)) flag("hand_off_two_holders", h.messageId, `lease ${h.leaseId} of ${h.messageId} was handed off and also acknowledged or nacked`);
  }
  const handedOffMessages = new Set(state.handOffAudit.map((h) => h.messageId));
  for (const messageId of handedOffMessages) {
    const m = messagesById.get(messageId);
    if (!m) {
      flag("hand_off_lost", messageId, `message ${messageId} was handed off and is no longer stored`);
      continue;
    }
    let addressee = m.sentToId;
    let previous: ClaimRow | null = null;
    for (const c of claimsByMessage.get(messageId) ?? []) {
      if (c.accountId !== addressee) flag("hand_off_two_holders", messageId, `lease ${c.leaseId} of ${messageId} was granted to ${c.accountId} while the message was addressed to ${addressee}`);
      if (previous !== null && handOffByLease.has(previous.leaseId) && c.deliveryCount !== previous.deliveryCount + 1) {
        flag("hand_off_lost", messageId, `the claim after the hand-off of ${messageId} counted ${c.deliveryCount} deliveries, the one before ${previous.deliveryCount}`);
      }
      const h = handOffByLease.get(c.leaseId);
      if (h !== undefined) {
        if (h.fromAccountId !== c.accountId) flag("hand_off_two_holders", messageId, `lease ${c.leaseId} of ${messageId}, held by ${c.accountId}, was handed off from ${h.fromAccountId}`);
        addressee = h.toAccountId;
      }
      previous = c;
    }
    if (m.recipientId !== addressee) flag("hand_off_lost", messageId, `message ${messageId} ended addressed to ${m.recipientId}, though it was last handed to ${addressee}`);
  }

  // Audit: exactly one message.sent row per stored message; the sealed chain verifies; nothing left unsealed.
  const sentRows = new Map<string, number>();
  for (const id of state.sentAudit) sentRows.set(id, (sentRows.get(id) ?? 0) + 1);
  for (const m of state.messages) {
    const n = sentRows.get(m.id) ?? 0;
    if (n !== 1) flag("audit_sent_rows", m.id, `message ${m.id} has ${n} message.sent audit rows`);
  }
  for (const id of sentRows.keys()) {
    if (!messagesById.has(id)) flag("audit_sent_rows", id, `a message.sent audit row names ${id}, which is not stored`);
  }
  const chain = verifyAuditChain(state.chain);
  if (!chain.ok) flag("audit_chain", null, `audit chain fails at row ${chain.row.id} (seq ${chain.row.seq}): ${chain.reason}`);
  if (state.unsealed > 0) flag("audit_chain", null, `${state.unsealed} audit rows were still unsealed`);

  return {
    ok: INVARIANTS.every((i) => counts[i] === 0),
    counts,
    examples: violations,
    duplicates,
    checked: {
      acknowledgedSends: history.sends.filter((s) => s.outcome === "ok").length,
      indeterminateCommitted,
      indeterminateNotCommitted,
      deadLettered,
      messages: state.messages.length,
      claims: state.claims.length,
      acceptedAcks: okSettles.filter((s) => s.kind === "ack").length,
      acceptedNacks: okSettles.filter((s) => s.kind === "nack").length,
      handOffs: state.handOffAudit.length,
      auditRowsVerified: chain.checked,
      leasesNotJudged: unseenNackLeases.size,
    },
  };
}

function duplicateCause(previous: ClaimRow, nackedLeases: Set<string>, handedOffLeases: ReadonlyMap<string, unknown>, deliveredLeases: Set<string>, indeterminateLeases: Set<string>): DuplicateCause {
  if (nackedLeases.has(previous.leaseId)) return "nack";
  if (handedOffLeases.has(previous.leaseId)) return "hand_off";
  // The holder never saw its lease (the claim's answer was lost to a kill or a network fault), or
  // never learnt whether its ack/nack landed: a crash, in the client's view.
  if (!deliveredLeases.has(previous.leaseId) || indeterminateLeases.has(previous.leaseId)) return "crash";
  return "lease_expiry";
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const map = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = map.get(k);
    if (list) list.push(item);
    else map.set(k, [item]);
  }
  return map;
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function iso(ms: number): string {
  return Number.isFinite(ms) ? new Date(ms).toISOString() : String(ms);
}
