import { GENESIS_HASH, auditChainHash, type AuditEntry } from "@agentq/core";
import { describe, expect, it } from "vitest";
import { checkRun, INVARIANTS, type Invariant } from "./checker.ts";
import type { ClaimRow, FinalState, RunHistory } from "./history.ts";

// Synthetic histories: a clean one passes, and each kind of broken one is reported under the
// invariant it breaks (and only there).

const T0 = Date.parse("2026-01-01T00:00:00.000Z");
const LEASE_MS = 10_000;

/** A clean run: `n` messages, each sent once, claimed once by c1 and acked inside its lease. */
function cleanRun(n = 3): { history: RunHistory; state: FinalState } {
  const history: RunHistory = { sends: [], deliveries: [], settles: [], handOffs: [], faults: [], polls: { ok: n } };
  const state: FinalState = { messages: [], claims: [], sentAudit: [], ackAudit: [], nackAudit: [], handOffAudit: [], chain: [], unsealed: 0 };
  for (let i = 0; i < n; i++) {
    const id = `m${i}`;
    const key = `k${i}`;
    const sentAt = T0 + i * 1000;
    const claimedAt = sentAt + 100;
    const ackedAt = claimedAt + 50;
    history.sends.push({ producer: "p1", key, outcome: "ok", messageId: id, messageIds: [id], attempts: 1, code: null, startedAt: sentAt, endedAt: sentAt + 5 });
    history.deliveries.push({ consumer: "c1", messageId: id, leaseId: `L${i}`, leaseExpiresAt: claimedAt + LEASE_MS, deliveryCount: 1, correlationId: key, receivedAt: claimedAt });
    history.settles.push({ consumer: "c1", kind: "ack", messageId: id, leaseId: `L${i}`, outcome: "ok", code: null, redeliverAfterMs: null, serverAt: ackedAt, afterSleepingPastLease: false, sentAt: ackedAt, answeredAt: ackedAt });
    state.messages.push({ id, correlationId: key, state: "acknowledged", deliveryCount: 1, acknowledgedAt: ackedAt, recipientId: "r1", sentToId: "r1" });
    state.claims.push({ messageId: id, leaseId: `L${i}`, claimedAt, leaseExpiresAt: claimedAt + LEASE_MS, accountId: "r1", deliveryCount: 1 });
    state.sentAudit.push(id);
    state.ackAudit.push({ messageId: id, leaseId: `L${i}` });
  }
  state.chain = sealedChain(state);
  return { history, state };
}

/** A valid sealed chain of one sent row per message. */
function sealedChain(state: FinalState): AuditEntry[] {
  let prev = GENESIS_HASH;
  return state.sentAudit.map((messageId, index) => {
    const row = {
      id: `a${index}`, workspaceId: "w1", occurredAt: new Date(T0 + index), activity: "message.sent", actorAccountId: "p1", actorCredentialId: "c", subjectType: "message",
      subjectId: messageId, messageId, details: {}, operatorSignificant: false, requestId: null,
    };
    const seq = index + 1;
    const hash = auditChainHash(prev, row, seq);
    const entry: AuditEntry = { ...row, seq, prevHash: prev, hash, sealedAt: new Date(T0) };
    prev = hash;
    return entry;
  });
}

function violated(report: ReturnType<typeof checkRun>): Partial<Record<Invariant, number>> {
  return Object.fromEntries(INVARIANTS.filter((i) => report.counts[i] > 0).map((i) => [i, report.counts[i]]));
}

function claim(state: FinalState, leaseId: string): ClaimRow {
  const c = state.claims.find((x) => x.leaseId === leaseId);
  if (!c) throw new Error(`no claim ${leaseId}`);
  return c;
}

describe("checkRun", () => {
  it("passes a clean history and counts what it checked", () => {
    const { history, state } = cleanRun(3);
    const report = checkRun(history, state);
    expect(violated(report)).toEqual({});
    expect(report.ok).toBe(true);
    expect(report.checked.acknowledgedSends).toBe(3);
    expect(report.checked.auditRowsVerified).toBe(3);
    expect(report.duplicates.total).toBe(0);
  });

  it("reports a lost message: the producer got a 201, no consumer ever received it", () => {
    const { history, state } = cleanRun(3);
    history.deliveries = history.deliveries.filter((d) => d.messageId !== "m1");
    history.settles = history.settles.filter((s) => s.messageId !== "m1");
    const report = checkRun(history, state);
    expect(violated(report)).toEqual({ lost: 1 });
    expect(report.examples[0]?.messageId).toBe("m1");
  });

  it("reports a lost message that vanished from the database", () => {
    const { history, state } = cleanRun(2);
    history.sends.push({ producer: "p1", key: "kx", outcome: "ok", messageId: "mx", messageIds: ["mx"], attempts: 2, code: null, startedAt: T0, endedAt: T0 });
    expect(violated(checkRun(history, state))).toEqual({ lost: 1 });
  });

  it("reports a committed send left pending after the drain", () => {
    const { history, state } = cleanRun(2);
    const m = state.messages[0]!;
    state.messages[0] = { ...m, state: "pending", acknowledgedAt: null };
    history.settles = history.settles.filter((s) => s.messageId !== m.id);
    state.ackAudit = state.ackAudit.filter((a) => a.messageId !== m.id);
    expect(violated(checkRun(history, state))).toEqual({ not_drained: 1 });
  });

  it("accepts a message dead-lettered after max_deliveries, and reports one dead-lettered early", () => {
    const { history, state } = cleanRun(2);
    state.messages[0] = { ...state.messages[0]!, state: "dead_lettered", deliveryCount: 10, acknowledgedAt: null };
    history.settles = history.settles.filter((s) => s.messageId !== "m0");
    state.ackAudit = state.ackAudit.filter((a) => a.messageId !== "m0");
    const report = checkRun(history, state);
    expect(violated(report)).toEqual({});
    expect(report.checked.deadLettered).toBe(1);
    state.messages[0] = { ...state.messages[0], deliveryCount: 3 };
    expect(violated(checkRun(history, state))).toEqual({ not_drained: 1 });
  });

  it("follows an indeterminate send that committed, and ignores one that did not", () => {
    const { history, state } = cleanRun(2);
    history.sends[0] = { ...history.sends[0]!, outcome: "indeterminate", messageId: null, messageIds: [], code: "network" };
    history.sends.push({ producer: "p2", key: "never", outcome: "indeterminate", messageId: null, messageIds: [], attempts: 4, code: "network", startedAt: T0, endedAt: T0 });
    const report = checkRun(history, state);
    expect(violated(report)).toEqual({});
    expect(report.checked).toMatchObject({ acknowledgedSends: 1, indeterminateCommitted: 1, indeterminateNotCommitted: 1 });
  });

  it("reports an unexpected delivery: a message no producer sent", () => {
    const { history, state } = cleanRun(2);
    state.messages.push({ id: "ghost", correlationId: "nobody", state: "acknowledged", deliveryCount: 1, acknowledgedAt: T0 + 60_100, recipientId: "r1", sentToId: "r1" });
    state.claims.push({ messageId: "ghost", leaseId: "LG", claimedAt: T0 + 60_000, leaseExpiresAt: T0 + 70_000, accountId: "r1", deliveryCount: 2 });
    state.sentAudit.push("ghost");
    state.ackAudit.push({ messageId: "ghost", leaseId: "LG" });
    state.chain = sealedChain(state);
    history.deliveries.push({ consumer: "c1", messageId: "ghost", leaseId: "LG", leaseExpiresAt: T0 + 70_000, deliveryCount: 1, correlationId: "nobody", receivedAt: T0 + 60_000 });
    expect(violated(checkRun(history, state))).toEqual({ unexpected: 1 });
  });

  it("reports a double enqueue: one Idempotency-Key, two stored messages", () => {
    const { history, state } = cleanRun(2);
    state.messages.push({ id: "m0bis", correlationId: "k0", state: "acknowledged", deliveryCount: 1, acknowledgedAt: T0 + 90_100, recipientId: "r1", sentToId: "r1" });
    state.claims.push({ messageId: "m0bis", leaseId: "Lbis", claimedAt: T0 + 90_000, leaseExpiresAt: T0 + 100_000, accountId: "r1", deliveryCount: 2 });
    state.sentAudit.push("m0bis");
    state.ackAudit.push({ messageId: "m0bis", leaseId: "Lbis" });
    state.chain = sealedChain(state);
    history.deliveries.push({ consumer: "c2", messageId: "m0bis", leaseId: "Lbis", leaseExpiresAt: T0 + 100_000, deliveryCount: 1, correlationId: "k0", receivedAt: T0 + 90_000 });
    const report = checkRun(history, state);
    expect(report.counts.double_enqueue).toBe(1);
    expect(report.ok).toBe(false);
  });

  it("reports a double enqueue seen by the producer: retries of one key returned two ids", () => {
    const { history, state } = cleanRun(2);
    history.sends[1] = { ...history.sends[1]!, messageIds: ["m1", "m1-again"], attempts: 2 };
    expect(violated(checkRun(history, state))).toEqual({ double_enqueue: 1 });
  });

  it("reports a double lease: a second consumer claimed while the first lease was live", () => {
    const { history, state } = cleanRun(2);
    // m0 is held by c1 from +100 ms to +10.1 s and acked at +150 ms; c2 got it at +120 ms.
    const first = claim(state, "L0");
    state.claims.push({ messageId: "m0", leaseId: "L0b", claimedAt: first.claimedAt + 20, leaseExpiresAt: first.claimedAt + 20 + LEASE_MS, accountId: "r1", deliveryCount: 2 });
    history.deliveries.push({ consumer: "c2", messageId: "m0", leaseId: "L0b", leaseExpiresAt: first.claimedAt + 20 + LEASE_MS, deliveryCount: 2, correlationId: "k0", receivedAt: first.claimedAt + 20 });
    const report = checkRun(history, state);
    expect(report.counts.lease_exclusivity).toBe(1);
    expect(report.ok).toBe(false);
  });

  it("does not count a claim right after the previous lease ended as a double lease, and explains the duplicate", () => {
    const { history, state } = cleanRun(1);
    // c1 slept past its lease: the ack was refused; c2 claimed after expiry and acked.
    const first = claim(state, "L0");
    history.settles = [{ ...history.settles[0]!, outcome: "refused", code: "SVC_LEASE_EXPIRED", serverAt: null, afterSleepingPastLease: true }];
    const second = { messageId: "m0", leaseId: "L1b", claimedAt: first.leaseExpiresAt + 3, leaseExpiresAt: first.leaseExpiresAt + 3 + LEASE_MS, accountId: "r1", deliveryCount: 2 };
    state.claims.push(second);
    history.deliveries.push({ consumer: "c2", messageId: "m0", leaseId: "L1b", leaseExpiresAt: second.leaseExpiresAt, deliveryCount: 2, correlationId: "k0", receivedAt: second.claimedAt });
    history.settles.push({ consumer: "c2", kind: "ack", messageId: "m0", leaseId: "L1b", outcome: "ok", code: null, redeliverAfterMs: null, serverAt: second.claimedAt + 10, afterSleepingPastLease: false, sentAt: 0, answeredAt: 0 });
    state.messages[0] = { ...state.messages[0]!, acknowledgedAt: second.claimedAt + 10, deliveryCount: 2 };
    state.ackAudit = [{ messageId: "m0", leaseId: "L1b" }];
    const report = checkRun(history, state);
    expect(violated(report)).toEqual({});
    expect(report.duplicates).toMatchObject({ total: 1, byCause: { lease_expiry: 1, nack: 0, crash: 0 }, observedByConsumers: 1 });
  });

  it("explains a duplicate whose first lease no consumer ever saw as a crash", () => {
    const { history, state } = cleanRun(1);
    const first = claim(state, "L0");
    // A claim whose answer was lost (server killed): in the database, never seen by a consumer.
    state.claims.unshift({ messageId: "m0", leaseId: "Llost", claimedAt: first.claimedAt - LEASE_MS - 10, leaseExpiresAt: first.claimedAt - 10, accountId: "r1", deliveryCount: 2 });
    const report = checkRun(history, state);
    expect(violated(report)).toEqual({});
    expect(report.duplicates.byCause).toEqual({ lease_expiry: 0, nack: 0, hand_off: 0, crash: 1 });
  });

  it("does not judge a lease ended by a nack whose answer was lost, and explains the duplicate as a nack", () => {
    const { history, state } = cleanRun(1);
    const first = claim(state, "L0");
    // c1's nack landed (audit row) but its answer was lost; c2 claimed at once and acked.
    history.settles = [{ consumer: "c1", kind: "nack", messageId: "m0", leaseId: "L0", outcome: "indeterminate", code: "network", redeliverAfterMs: 0, serverAt: null, afterSleepingPastLease: false, sentAt: 0, answeredAt: 0 }];
    state.nackAudit = [{ messageId: "m0", leaseId: "L0" }];
    const second = { messageId: "m0", leaseId: "L1", claimedAt: first.claimedAt + 40, leaseExpiresAt: first.claimedAt + 40 + LEASE_MS, accountId: "r1", deliveryCount: 2 };
    state.claims.push(second);
    history.deliveries.push({ consumer: "c2", messageId: "m0", leaseId: "L1", leaseExpiresAt: second.leaseExpiresAt, deliveryCount: 2, correlationId: "k0", receivedAt: 0 });
    history.settles.push({ consumer: "c2", kind: "ack", messageId: "m0", leaseId: "L1", outcome: "ok", code: null, redeliverAfterMs: null, serverAt: second.claimedAt + 10, afterSleepingPastLease: false, sentAt: 0, answeredAt: 0 });
    state.messages[0] = { ...state.messages[0]!, acknowledgedAt: second.claimedAt + 10 };
    state.ackAudit = [{ messageId: "m0", leaseId: "L1" }];
    const report = checkRun(history, state);
    expect(violated(report)).toEqual({});
    expect(report.checked.leasesNotJudged).toBe(1);
    expect(report.duplicates.byCause.nack).toBe(1);
    // Without the audit row the same history is a double lease.
    state.nackAudit = [];
    expect(checkRun(history, state).counts.lease_exclusivity).toBe(1);
  });

  it("reports an ack accepted after the lease expired", () => {
    const { history, state } = cleanRun(2);
    const c = claim(state, "L1");
    const late = c.leaseExpiresAt + 2_000;
    history.settles = history.settles.map((s) => (s.leaseId === "L1" ? { ...s, serverAt: late, afterSleepingPastLease: true } : s));
    state.messages = state.messages.map((m) => (m.id === "m1" ? { ...m, acknowledgedAt: late } : m));
    const report = checkRun(history, state);
    // Seen twice: in the consumer's answer and in the database's row.
    expect(violated(report)).toEqual({ ack_after_expiry: 2 });
  });

  it("reports an ack accepted with a lease that was no longer the current one", () => {
    const { history, state } = cleanRun(1);
    const first = claim(state, "L0");
    // The lease expired, c2 claimed it, then c1's ack with the old lease was accepted (inside the old lease, per a broken clock).
    const second = { messageId: "m0", leaseId: "L0new", claimedAt: first.leaseExpiresAt + 1, leaseExpiresAt: first.leaseExpiresAt + 1 + LEASE_MS, accountId: "r1", deliveryCount: 2 };
    state.claims.push(second);
    history.deliveries.push({ consumer: "c2", messageId: "m0", leaseId: "L0new", leaseExpiresAt: second.leaseExpiresAt, deliveryCount: 2, correlationId: "k0", receivedAt: second.claimedAt });
    const ackAt = second.claimedAt + 100;
    history.settles = [{ ...history.settles[0]!, serverAt: ackAt }];
    state.messages[0] = { ...state.messages[0]!, acknowledgedAt: ackAt };
    const report = checkRun(history, state);
    expect(report.counts.ack_not_current_lease).toBeGreaterThanOrEqual(1);
    expect(report.counts.ack_after_expiry).toBeGreaterThanOrEqual(1);
    expect(report.ok).toBe(false);
  });

  it("reports a redelivery after a successful ack", () => {
    const { history, state } = cleanRun(2);
    const first = claim(state, "L0");
    state.claims.push({ messageId: "m0", leaseId: "Lagain", claimedAt: first.claimedAt + 30_000, leaseExpiresAt: first.claimedAt + 40_000, accountId: "r1", deliveryCount: 2 });
    history.deliveries.push({ consumer: "c3", messageId: "m0", leaseId: "Lagain", leaseExpiresAt: first.claimedAt + 40_000, deliveryCount: 2, correlationId: "k0", receivedAt: first.claimedAt + 30_000 });
    const report = checkRun(history, state);
    expect(report.counts.redelivery_after_ack).toBe(1);
    expect(report.ok).toBe(false);
  });

  it("reports a redelivery earlier than the nack allowed, and accepts one on time", () => {
    const build = (redeliverGapMs: number) => {
      const { history, state } = cleanRun(1);
      const first = claim(state, "L0");
      const nackAt = first.claimedAt + 50;
      const availableAt = nackAt + 5_000;
      history.settles = [{ consumer: "c1", kind: "nack", messageId: "m0", leaseId: "L0", outcome: "ok", code: null, redeliverAfterMs: 5_000, serverAt: availableAt, afterSleepingPastLease: false, sentAt: 0, answeredAt: 0 }];
      state.nackAudit = [{ messageId: "m0", leaseId: "L0" }];
      const second = { messageId: "m0", leaseId: "L1", claimedAt: availableAt + redeliverGapMs, leaseExpiresAt: availableAt + redeliverGapMs + LEASE_MS, accountId: "r1", deliveryCount: 2 };
      state.claims.push(second);
      history.deliveries.push({ consumer: "c2", messageId: "m0", leaseId: "L1", leaseExpiresAt: second.leaseExpiresAt, deliveryCount: 2, correlationId: "k0", receivedAt: 0 });
      history.settles.push({ consumer: "c2", kind: "ack", messageId: "m0", leaseId: "L1", outcome: "ok", code: null, redeliverAfterMs: null, serverAt: second.claimedAt + 10, afterSleepingPastLease: false, sentAt: 0, answeredAt: 0 });
      state.messages[0] = { ...state.messages[0]!, acknowledgedAt: second.claimedAt + 10 };
      state.ackAudit = [{ messageId: "m0", leaseId: "L1" }];
      return checkRun(history, state);
    };
    expect(violated(build(-2_000))).toEqual({ redelivery_before_nack: 1 });
    const onTime = build(20);
    expect(violated(onTime)).toEqual({});
    expect(onTime.duplicates.byCause.nack).toBe(1);
  });

  it("reports a send refused with a definitive code whose message was stored anyway", () => {
    const { history, state } = cleanRun(2);
    history.sends[0] = { ...history.sends[0]!, outcome: "failed", messageId: null, messageIds: [], code: "SVC_MALFORMED_REQUEST" };
    const report = checkRun(history, state);
    expect(report.counts.failed_send_committed).toBe(1);
    expect(report.ok).toBe(false);
  });

  it("reports a message without exactly one message.sent row, a tampered chain and unsealed rows", () => {
    const { history, state } = cleanRun(3);
    state.sentAudit = ["m0", "m0", "m2"];
    expect(checkRun(history, state).counts.audit_sent_rows).toBe(2);

    const tampered = cleanRun(3);
    tampered.state.chain[1] = { ...tampered.state.chain[1]!, subjectId: "m9" };
    expect(violated(checkRun(tampered.history, tampered.state))).toEqual({ audit_chain: 1 });

    const unsealed = cleanRun(2);
    unsealed.state.unsealed = 4;
    expect(violated(checkRun(unsealed.history, unsealed.state))).toEqual({ audit_chain: 1 });
  });

  it("reports a delivery of a lease the database never recorded", () => {
    const { history, state } = cleanRun(2);
    state.claims = state.claims.filter((c) => c.leaseId !== "L1");
    const report = checkRun(history, state);
    expect(report.counts.audit_claim_rows).toBe(1);
    expect(report.ok).toBe(false);
  });

  describe("hand-offs: never held by two accounts, never lost between them", () => {
    /** m0 claimed by r1 (L0), handed to r2 inside its lease, claimed by r2 (L0h, delivery 2) and acked; m1 untouched. */
    function handedOffRun() {
      const { history, state } = cleanRun(2);
      const first = claim(state, "L0");
      const handedAt = first.claimedAt + 20;
      const next: ClaimRow = { messageId: "m0", leaseId: "L0h", claimedAt: handedAt + 5, leaseExpiresAt: handedAt + 5 + LEASE_MS, accountId: "r2", deliveryCount: 2 };
      const ackedAt = next.claimedAt + 30;
      history.settles = history.settles.filter((s) => s.leaseId !== "L0");
      history.handOffs.push({ consumer: "c1", messageId: "m0", leaseId: "L0", from: "recipient-1", to: "recipient-2", outcome: "ok", code: null, serverAt: handedAt, sentAt: handedAt, answeredAt: handedAt });
      history.deliveries.push({ consumer: "c2", messageId: "m0", leaseId: "L0h", leaseExpiresAt: next.leaseExpiresAt, deliveryCount: 2, correlationId: "k0", receivedAt: next.claimedAt });
      history.settles.push({ consumer: "c2", kind: "ack", messageId: "m0", leaseId: "L0h", outcome: "ok", code: null, redeliverAfterMs: null, serverAt: ackedAt, afterSleepingPastLease: false, sentAt: ackedAt, answeredAt: ackedAt });
      state.claims.push(next);
      state.handOffAudit.push({ messageId: "m0", leaseId: "L0", fromAccountId: "r1", toAccountId: "r2" });
      state.ackAudit = state.ackAudit.map((a) => (a.leaseId === "L0" ? { ...a, leaseId: "L0h" } : a));
      state.messages[0] = { ...state.messages[0]!, recipientId: "r2", deliveryCount: 2, acknowledgedAt: ackedAt };
      return { history, state };
    }

    it("passes a clean hand-off and counts it, its redelivery explained by the hand-off", () => {
      const { history, state } = handedOffRun();
      const report = checkRun(history, state);
      expect(violated(report)).toEqual({});
      expect(report.checked.handOffs).toBe(1);
      expect(report.duplicates.byCause.hand_off).toBe(1);
    });

    it("reports a claim by the former holder after the hand-off, and a handed-off lease also acknowledged", () => {
      const stale = handedOffRun();
      stale.state.claims = stale.state.claims.map((c) => (c.leaseId === "L0h" ? { ...c, accountId: "r1" } : c));
      expect(violated(checkRun(stale.history, stale.state))).toEqual({ hand_off_two_holders: 1 });

      const both = handedOffRun();
      both.state.ackAudit.push({ messageId: "m0", leaseId: "L0" });
      expect(checkRun(both.history, both.state).counts.hand_off_two_holders).toBe(1);
    });

    it("reports a hand-off answered 200 but never recorded, a message not addressed to its last holder, and a delivery count reset", () => {
      const unrecorded = handedOffRun();
      unrecorded.state.handOffAudit = [];
      expect(checkRun(unrecorded.history, unrecorded.state).counts.hand_off_lost).toBe(1);

      const misaddressed = handedOffRun();
      misaddressed.state.messages[0] = { ...misaddressed.state.messages[0]!, recipientId: "r1" };
      expect(violated(checkRun(misaddressed.history, misaddressed.state))).toEqual({ hand_off_lost: 1 });

      const reset = handedOffRun();
      reset.state.claims = reset.state.claims.map((c) => (c.leaseId === "L0h" ? { ...c, deliveryCount: 1 } : c));
      expect(violated(checkRun(reset.history, reset.state))).toEqual({ hand_off_lost: 1 });
    });

    it("reports a new holder's claim while the handing lease was still live (the hand-off answered later)", () => {
      const { history, state } = handedOffRun();
      const h = history.handOffs[0]!;
      history.handOffs[0] = { ...h, serverAt: claim(state, "L0h").claimedAt + 1_000 };
      expect(checkRun(history, state).counts.lease_exclusivity).toBe(1);
    });
  });
});
