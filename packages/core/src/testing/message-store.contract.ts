import { beforeEach, describe, expect, it } from "vitest";
import type { AiAccount } from "../access/model.ts";
import type { NewAuditEntry } from "../audit/audit-entry.ts";
import type { ErrorCode } from "../errors.ts";
import { leaseRefusal, type LeaseOperation } from "../messaging/lease-refusal.ts";
import type { MessageRecord, NewMessage, Priority } from "../messaging/message.ts";
import { MESSAGING_LIMITS } from "../messaging/messaging-limits.ts";
import type { HandOffResult, LeaseWriteResult } from "../ports.ts";
import type { ApprovalHolds } from "../policies/approval-holds.ts";
import type { IdempotencyRecord } from "../idempotency/idempotency-record.ts";
import { HOUR_MS, MINUTE_MS, SECOND_MS } from "../time/duration.ts";
import { fixtureId } from "./access-fixtures.ts";
import { seedWorkspace, type MessagingHarness, type MessagingHarnessFactory, type SeededWorkspace } from "./messaging-harness.ts";
import { makeAuditEntry, makeIdempotencyRecord, makeNewMessage } from "./messaging-fixtures.ts";

const L = MESSAGING_LIMITS;
/** Slack for assertions about store-clock instants (PostgreSQL's clock runs while a test does). */
const SLACK_MS = 5 * SECOND_MS;

/**
 * The contract every MessageStore adapter passes (InMemoryMessageStore, PgMessageStore): every
 * transition of the message state machine (spec §States/Message) and every lease refusal, with
 * refusals asserted as the SVC_ code `leaseRefusal` derives from the store's snapshot.
 * @param make returns the harness, called before each test (see MessagingHarness for time).
 */
export function describeMessageStoreContract(make: MessagingHarnessFactory): void {
  describe("MessageStore contract", () => {
    let h: MessagingHarness;
    let w: SeededWorkspace;

    beforeEach(async () => {
      h = await make();
      w = await seedWorkspace(h.stores);
    });

    const now = () => h.stores.messages.now();
    const ids = (n: number) => Array.from({ length: n }, () => fixtureId());
    const auditOf = async (messageId: string, activity: string, workspaceId = w.workspace.id): Promise<NewAuditEntry> =>
      makeAuditEntry(workspaceId, { activity, messageId, subjectType: "message", subjectId: messageId, occurredAt: await now(), actorAccountId: w.recipient.id });

    async function send(overrides: Partial<NewMessage> = {}, from: AiAccount = w.sender, to: AiAccount = w.recipient): Promise<MessageRecord> {
      const message = makeNewMessage({ sender: from, recipient: to, now: await now() }, overrides);
      const r = await h.stores.messages.acceptSend({ message, audit: makeAuditEntry(message.workspaceId, { activity: "message.sent", messageId: message.id, subjectType: "message", subjectId: message.id, occurredAt: message.acceptedAt, actorAccountId: from.id }), idempotency: null });
      if (r.kind !== "accepted") throw new Error(`send: ${r.kind}`);
      return r.message;
    }

    async function claim(opts: { max?: number; vt?: number; recipient?: AiAccount; maxDeliveries?: number } = {}) {
      const recipient = opts.recipient ?? w.recipient;
      const max = opts.max ?? 10;
      return h.stores.messages.claimBatch({ workspaceId: recipient.workspaceId, recipientId: recipient.id, max, visibilityTimeoutMs: opts.vt ?? 120 * SECOND_MS, maxDeliveries: opts.maxDeliveries ?? w.workspace.maxDeliveries, auditIds: ids(max), requestId: "req-claim", credentialId: null });
    }

    async function claimOne(opts: { vt?: number } = {}): Promise<MessageRecord & { leaseId: string }> {
      const { claimed } = await claim({ max: 1, ...opts });
      expect(claimed).toHaveLength(1);
      const m = claimed[0] as MessageRecord;
      expect(m.leaseId).toEqual(expect.any(String));
      return m as MessageRecord & { leaseId: string };
    }

    const ack = async (m: { id: string }, leaseId: string, recipient: AiAccount = w.recipient, outcomeSummary: string | null = "done") =>
      h.stores.messages.ackIfHeld({ workspaceId: recipient.workspaceId, messageId: m.id, recipientId: recipient.id, leaseId, outcomeSummary, audit: await auditOf(m.id, "message.acknowledged", recipient.workspaceId) });
    const nack = async (m: { id: string }, leaseId: string, redeliverAfterMs = 0) =>
      h.stores.messages.nackIfHeld({ workspaceId: w.workspace.id, messageId: m.id, recipientId: w.recipient.id, leaseId, redeliverAfterMs, minIntervalMs: L.nackMinIntervalMs, audit: await auditOf(m.id, "message.nacked") });
    const extend = async (m: { id: string }, leaseId: string, visibilityTimeoutMs = 120 * SECOND_MS) =>
      h.stores.messages.extendIfHeld({ workspaceId: w.workspace.id, messageId: m.id, recipientId: w.recipient.id, leaseId, visibilityTimeoutMs, minIntervalMs: L.extendMinIntervalMs, maxExtensions: L.maxExtensions, cumulativeCapMs: L.leaseCumulativeCapMs, audit: await auditOf(m.id, "message.lease_extended") });

    /** The code the use case would answer for a refused lease write. */
    function refusal(r: LeaseWriteResult, op: LeaseOperation, leaseId: string): ErrorCode {
      if (r.ok) throw new Error("expected the store to refuse the lease write");
      return leaseRefusal({ op, leaseId, snapshot: r.snapshot, now: r.now }).code;
    }

    /** A hand-off's refusal as the lease write result `leaseRefusal` reads. */
    function toLease(r: HandOffResult): LeaseWriteResult {
      if (r.kind === "refused") return { ok: false, snapshot: r.snapshot, now: r.now };
      throw new Error(`expected a lease refusal, got ${r.kind}`);
    }

    const find = (m: { id: string }, account: AiAccount = w.recipient) => h.stores.messages.findForParticipant({ workspaceId: account.workspaceId, messageId: m.id, accountId: account.id });
    const activities = async (m: { id: string }) => (await h.stores.audit.timeline({ workspaceId: w.workspace.id, messageId: m.id })).map((e) => e.activity);

    function expectNear(actual: Date | null, expected: number): void {
      expect(actual).not.toBeNull();
      expect(Math.abs((actual as Date).getTime() - expected)).toBeLessThanOrEqual(SLACK_MS);
    }

    describe("send", () => {
      it("stores a pending message with its audit row, visible to sender and recipient only", async () => {
        const m = await send({ correlationId: "corr-1", priority: "high", payload: { directive_kind: "k", summary: "s", instructions: "i", nested: { a: [1, 2] } } });
        expect(m.state).toBe("pending");
        expect(m.deliveryCount).toBe(0);
        expect(m.leaseId).toBeNull();
        const read = await find(m);
        expect(read).toMatchObject({ id: m.id, state: "pending", senderId: w.sender.id, recipientId: w.recipient.id, senderName: w.sender.friendlyName, recipientName: w.recipient.friendlyName, priority: "high", correlationId: "corr-1", template: "directive", deliveryCount: 0 });
        expect(read?.payload).toEqual({ directive_kind: "k", summary: "s", instructions: "i", nested: { a: [1, 2] } });
        expect(read?.acceptedAt.getTime()).toBe(m.acceptedAt.getTime());
        expect(read?.expiresAt.getTime()).toBe(m.expiresAt.getTime());
        expect(await find(m, w.sender)).not.toBeNull();
        expect(await find(m, w.bystander)).toBeNull();
        expect(await activities(m)).toEqual(["message.sent"]);
      });

      it("is invisible from another workspace", async () => {
        const m = await send();
        const other = await seedWorkspace(h.stores);
        expect(await h.stores.messages.findForParticipant({ workspaceId: other.workspace.id, messageId: m.id, accountId: w.recipient.id })).toBeNull();
        expect((await claim({ recipient: { ...w.recipient, workspaceId: other.workspace.id } })).claimed).toEqual([]);
      });

      it("stores the idempotency record with the message; a second send with the key writes nothing and returns the record", async () => {
        const t = await now();
        const record = makeIdempotencyRecord({ workspaceId: w.workspace.id, accountId: w.sender.id, now: t }, { status: 201, bodyText: '{"message_id":"x"}' });
        const first = makeNewMessage({ sender: w.sender, recipient: w.recipient, now: t });
        const r1 = await h.stores.messages.acceptSend({ message: first, audit: makeAuditEntry(w.workspace.id, { activity: "message.sent", messageId: first.id, occurredAt: t }), idempotency: record });
        expect(r1.kind).toBe("accepted");
        const second = makeNewMessage({ sender: w.sender, recipient: w.recipient, now: t });
        const r2 = await h.stores.messages.acceptSend({ message: second, audit: makeAuditEntry(w.workspace.id, { activity: "message.sent", messageId: second.id, occurredAt: t }), idempotency: { ...record, fingerprint: "0".repeat(64), requestId: "req-second" } });
        expect(r2).toMatchObject({ kind: "idempotency_exists", record: { key: record.key, fingerprint: record.fingerprint, requestId: record.requestId, status: 201, bodyText: '{"message_id":"x"}' } });
        expect(await find(second)).toBeNull();
        expect(await h.stores.audit.timeline({ workspaceId: w.workspace.id, messageId: second.id })).toEqual([]);
        expect(await h.stores.idempotency.find({ workspaceId: w.workspace.id, accountId: w.sender.id, key: record.key })).toMatchObject({ status: 201, requestId: record.requestId });
      });

      it("two concurrent sends with one key: exactly one is accepted", async () => {
        const t = await now();
        const key = `key-${fixtureId()}`;
        const attempts = Array.from({ length: 6 }, () => {
          const message = makeNewMessage({ sender: w.sender, recipient: w.recipient, now: t });
          return h.stores.messages.acceptSend({ message, audit: makeAuditEntry(w.workspace.id, { activity: "message.sent", messageId: message.id, occurredAt: t }), idempotency: makeIdempotencyRecord({ workspaceId: w.workspace.id, accountId: w.sender.id, now: t }, { key, status: 201, bodyText: JSON.stringify({ message_id: message.id }) }) });
        });
        const results = await Promise.all(attempts);
        const accepted = results.filter((r) => r.kind === "accepted");
        expect(accepted).toHaveLength(1);
        const winner = accepted[0] as { kind: "accepted"; message: MessageRecord };
        for (const r of results.filter((x) => x.kind !== "accepted")) {
          expect(r).toMatchObject({ kind: "idempotency_exists", record: { bodyText: JSON.stringify({ message_id: winner.message.id }) } });
        }
        expect((await claim({ max: 10 })).claimed.map((m) => m.id)).toEqual([winner.message.id]);
      });

      it("refuses a recipient revoked since resolution, writing nothing", async () => {
        await h.stores.accounts.transition({ workspaceId: w.workspace.id, accountId: w.recipient.id, from: ["active"], to: "revoked", now: await now() });
        const t = await now();
        const message = makeNewMessage({ sender: w.sender, recipient: w.recipient, now: t });
        const record = makeIdempotencyRecord({ workspaceId: w.workspace.id, accountId: w.sender.id, now: t }, { status: 201, bodyText: "{}" });
        const r = await h.stores.messages.acceptSend({ message, audit: makeAuditEntry(w.workspace.id, { activity: "message.sent", messageId: message.id, occurredAt: t }), idempotency: record });
        expect(r).toEqual({ kind: "recipient_gone" });
        expect(await find(message, w.sender)).toBeNull();
        expect(await h.stores.idempotency.find({ workspaceId: w.workspace.id, accountId: w.sender.id, key: record.key })).toBeNull();
        expect(await h.stores.audit.timeline({ workspaceId: w.workspace.id, messageId: message.id })).toEqual([]);
      });

      it("refuses a recipient renamed since resolution (the name no longer holds), writing nothing", async () => {
        const message = makeNewMessage({ sender: w.sender, recipient: w.recipient, now: await now() });
        const renamed = await h.stores.accounts.rename({ workspaceId: w.workspace.id, accountId: w.recipient.id, friendlyName: `${w.recipient.friendlyName}-renamed`, now: await now() });
        expect(renamed.kind).toBe("renamed");
        const r = await h.stores.messages.acceptSend({ message, audit: makeAuditEntry(w.workspace.id, { activity: "message.sent", messageId: message.id, occurredAt: message.acceptedAt }), idempotency: null });
        expect(r).toEqual({ kind: "recipient_gone" });
        expect(await find(message, w.sender)).toBeNull();
      });

      it("refuses a sender that has not acknowledged a required policy, writing nothing, and accepts once it has", async () => {
        const t = await now();
        const policy = await h.stores.policies.publish({ workspaceId: w.workspace.id, name: "acceptable-use", newId: fixtureId(), required: true, kind: "acknowledgement", holds: null, body: "Be kind.", publishedAt: t, publishedBy: null });
        // A policy that is not required gates nothing.
        await h.stores.policies.publish({ workspaceId: w.workspace.id, name: "newsletter", newId: fixtureId(), required: false, kind: "acknowledgement", holds: null, body: "Optional.", publishedAt: t, publishedBy: null });
        const message = makeNewMessage({ sender: w.sender, recipient: w.recipient, now: t });
        const record = makeIdempotencyRecord({ workspaceId: w.workspace.id, accountId: w.sender.id, now: t }, { status: 201, bodyText: "{}" });
        const audit = makeAuditEntry(w.workspace.id, { activity: "message.sent", messageId: message.id, occurredAt: t });
        expect(await h.stores.messages.acceptSend({ message, audit, idempotency: record })).toEqual({ kind: "policy_unacknowledged" });
        expect(await find(message, w.sender)).toBeNull();
        expect(await h.stores.idempotency.find({ workspaceId: w.workspace.id, accountId: w.sender.id, key: record.key })).toBeNull();
        // The gate is the sender's: the recipient's acknowledgement does not open it.
        await h.stores.policies.acknowledge({ workspaceId: w.workspace.id, policyId: policy.id, accountId: w.recipient.id, version: policy.version, now: await now() });
        expect((await h.stores.messages.acceptSend({ message, audit, idempotency: record })).kind).toBe("policy_unacknowledged");
        await h.stores.policies.acknowledge({ workspaceId: w.workspace.id, policyId: policy.id, accountId: w.sender.id, version: policy.version, now: await now() });
        expect((await h.stores.messages.acceptSend({ message, audit, idempotency: record })).kind).toBe("accepted");
        // A stored key wins over a gate closed since: a new version is required again.
        await h.stores.policies.publish({ workspaceId: w.workspace.id, name: "acceptable-use", newId: fixtureId(), required: true, kind: "acknowledgement", holds: null, body: "Be kinder.", publishedAt: await now(), publishedBy: null });
        const again = makeNewMessage({ sender: w.sender, recipient: w.recipient, now: await now() });
        expect(await h.stores.messages.acceptSend({ message: again, audit: makeAuditEntry(w.workspace.id, { activity: "message.sent", messageId: again.id, occurredAt: again.acceptedAt }), idempotency: record })).toMatchObject({ kind: "idempotency_exists", record: { key: record.key } });
        expect((await h.stores.messages.acceptSend({ message: again, audit: makeAuditEntry(w.workspace.id, { activity: "message.sent", messageId: again.id, occurredAt: again.acceptedAt }), idempotency: null })).kind).toBe("policy_unacknowledged");
      });

      it("wakes the recipient's long-polling waiters", async () => {
        const woken = h.notifier.waitForMessages({ workspaceId: w.workspace.id, recipientId: w.recipient.id, timeoutMs: 60_000 });
        let done = false;
        void woken.then(() => (done = true));
        // The waiter may still be registering (LISTEN); keep sending until it wakes. The test
        // times out (fails) if no send ever wakes it.
        while (!done) {
          await send();
          await new Promise((r) => setTimeout(r, 20));
        }
        await woken;
      });
    });

    describe("wake-ups", () => {
      /** Resolves once `act` (repeated while the waiter may still be registering) wakes a waiter of the recipient. */
      async function expectWakes(act: () => Promise<void>): Promise<void> {
        const woken = h.notifier.waitForMessages({ workspaceId: w.workspace.id, recipientId: w.recipient.id, timeoutMs: 60_000 });
        let done = false;
        void woken.then(() => (done = true));
        while (!done) {
          await act();
          await new Promise((r) => setTimeout(r, 20));
        }
      }

      it("a nack that makes the message claimable at once wakes the recipient's waiters", async () => {
        await expectWakes(async () => {
          // A fresh message each time, so no message is nacked twice within the 30 s window.
          const fresh = await send();
          const { claimed } = await claim({ max: 100, vt: 600 * SECOND_MS });
          for (const c of claimed) {
            const r = c.id === fresh.id ? await nack(c, c.leaseId as string) : await ack(c, c.leaseId as string);
            expect(r.ok).toBe(true);
          }
        });
      });

      it("releasing a dead letter wakes the recipient's waiters", async () => {
        const t = await now();
        for (let i = 0; i < 50; i++) await send({ acceptedAt: t });
        expect((await claim({ max: 50, maxDeliveries: 0 })).deadLettered).toHaveLength(50);
        const dead = await h.stores.messages.listDeadLettered({ workspaceId: w.workspace.id, after: null, limit: 100 });
        await expectWakes(async () => {
          const m = dead.pop();
          if (!m) throw new Error("ran out of dead letters before a wake-up");
          expect(await h.stores.messages.release({ workspaceId: w.workspace.id, messageId: m.id, audit: await auditOf(m.id, "message.released") })).not.toBeNull();
        });
      });
    });

    describe("claim (pending -> held)", () => {
      it("claims in dequeue order: priority first, then accepted time, at most max", async () => {
        const t = await now();
        const order: [Priority, number][] = [["low", 0], ["normal", 1], ["urgent", 2], ["high", 3], ["urgent", 4], ["normal", 0]];
        const sent: MessageRecord[] = [];
        for (const [priority, offset] of order) sent.push(await send({ priority, acceptedAt: new Date(t.getTime() - 10_000 + offset * 1000), visibleAt: new Date(t.getTime() - 10_000) }));
        const first = await claim({ max: 4 });
        const expected = [sent[2], sent[4], sent[3], sent[5]].map((m) => m?.id);
        expect(first.claimed.map((m) => m.id)).toEqual(expected);
        const rest = await claim({ max: 10 });
        expect(rest.claimed.map((m) => m.id)).toEqual([sent[1], sent[0]].map((m) => m?.id));
        expect((await claim()).claimed).toEqual([]);
      });

      it("sets a fresh lease, the visibility timeout, one delivery and the claim audit row", async () => {
        const m = await send();
        const t = (await now()).getTime();
        const c = await claimOne({ vt: 30 * SECOND_MS });
        expect(c).toMatchObject({ id: m.id, state: "held", deliveryCount: 1, leaseExtensions: 0 });
        expectNear(c.visibleAt, t + 30 * SECOND_MS);
        expectNear(c.leaseClaimedAt, t);
        expect(await find(m)).toMatchObject({ state: "held", leaseId: c.leaseId, deliveryCount: 1 });
        expect(await activities(m)).toEqual(["message.sent", "message.claimed"]);
      });

      it("claims only the caller's own messages, and not before deliver_after", async () => {
        const t = await now();
        await send({}, w.sender, w.bystander);
        const later = await send({ visibleAt: new Date(t.getTime() + MINUTE_MS) });
        expect((await claim()).claimed).toEqual([]);
        await h.advance(MINUTE_MS + SECOND_MS);
        expect((await claim()).claimed.map((m) => m.id)).toEqual([later.id]);
      });

      it("never claims an expired message", async () => {
        const t = await now();
        await send({ expiresAt: new Date(t.getTime() + 30 * SECOND_MS) });
        await h.advance(31 * SECOND_MS);
        expect((await claim()).claimed).toEqual([]);
      });

      it("lease runs out: the message is claimable again with a new lease; the old lease gets SVC_LEASE_EXPIRED, then SVC_LEASE_NOT_HELD once re-leased", async () => {
        await send();
        const first = await claimOne({ vt: 10 * SECOND_MS });
        expect((await claim()).claimed).toEqual([]);
        await h.advance(10 * SECOND_MS + SECOND_MS);
        expect(refusal(await ack(first, first.leaseId), { kind: "ack" }, first.leaseId)).toBe("SVC_LEASE_EXPIRED");
        expect(refusal(await nack(first, first.leaseId), { kind: "nack", redeliverAfterMs: 0 }, first.leaseId)).toBe("SVC_LEASE_EXPIRED");
        expect(refusal(await extend(first, first.leaseId), { kind: "extend", visibilityTimeoutMs: 120_000 }, first.leaseId)).toBe("SVC_LEASE_EXPIRED");
        const second = await claimOne();
        expect(second.id).toBe(first.id);
        expect(second.leaseId).not.toBe(first.leaseId);
        expect(second.deliveryCount).toBe(2);
        expect(refusal(await ack(first, first.leaseId), { kind: "ack" }, first.leaseId)).toBe("SVC_LEASE_NOT_HELD");
        expect((await ack(second, second.leaseId)).ok).toBe(true);
      });

      it("dead-letters a message whose next claim would exceed maxDeliveries, instead of delivering it", async () => {
        const m = await send();
        let last = await claimOne({ vt: 10 * SECOND_MS });
        await h.advance(11 * SECOND_MS);
        last = await claimOne({ vt: 10 * SECOND_MS });
        expect(last.deliveryCount).toBe(2);
        await h.advance(11 * SECOND_MS);
        const third = await claim({ maxDeliveries: 2 });
        expect(third).toEqual({ claimed: [], deadLettered: [m.id] });
        expect(await find(m)).toMatchObject({ state: "dead_lettered", deliveryCount: 2 });
        expect((await find(m))?.deadLetteredAt).not.toBeNull();
        expect(refusal(await ack(m, last.leaseId), { kind: "ack" }, last.leaseId)).toBe("SVC_DEAD_LETTERED");
        expect(refusal(await nack(m, last.leaseId), { kind: "nack", redeliverAfterMs: 0 }, last.leaseId)).toBe("SVC_DEAD_LETTERED");
        expect(refusal(await extend(m, last.leaseId), { kind: "extend", visibilityTimeoutMs: 60_000 }, last.leaseId)).toBe("SVC_DEAD_LETTERED");
        expect((await claim()).claimed).toEqual([]);
        expect(await activities(m)).toEqual(["message.sent", "message.claimed", "message.claimed", "message.dead_lettered"]);
      });

      it("8 concurrent consumers over 1,000 messages: no message under two live leases, each delivered once", async () => {
        const t = await now();
        const sent = new Set<string>();
        const batch: Promise<MessageRecord>[] = [];
        for (let i = 0; i < 1000; i++) batch.push(send({ priority: (["low", "normal", "high", "urgent"] as const)[i % 4], acceptedAt: t }));
        for (const m of await Promise.all(batch)) sent.add(m.id);
        const holder = new Map<string, string>();
        const deliveries = new Map<string, number>();
        let violations = 0;
        const consumer = async () => {
          for (;;) {
            const { claimed } = await claim({ max: 10, vt: 600 * SECOND_MS });
            if (claimed.length === 0) return;
            for (const m of claimed) {
              if (holder.has(m.id)) violations++;
              holder.set(m.id, m.leaseId as string);
              deliveries.set(m.id, (deliveries.get(m.id) ?? 0) + 1);
            }
            await Promise.all(claimed.map(async (m) => {
              const r = await ack(m, m.leaseId as string);
              if (!r.ok) violations++;
              holder.delete(m.id);
            }));
          }
        };
        await Promise.all(Array.from({ length: 8 }, consumer));
        expect(violations).toBe(0);
        expect(deliveries.size).toBe(1000);
        expect([...deliveries.keys()].every((id) => sent.has(id))).toBe(true);
        expect([...deliveries.values()].every((n) => n === 1)).toBe(true);
      }, 120_000);
    });

    describe("ack (held -> acknowledged)", () => {
      it("acknowledges under the live lease, once; the repeat with the same lease reports the acknowledged snapshot", async () => {
        const m = await send();
        const c = await claimOne();
        const t = (await now()).getTime();
        const r = await ack(c, c.leaseId, w.recipient, "all good");
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        expect(r.message).toMatchObject({ id: m.id, state: "acknowledged", outcomeSummary: "all good", leaseId: c.leaseId });
        expectNear(r.message.acknowledgedAt, t);
        const again = await ack(c, c.leaseId);
        expect(again.ok).toBe(false);
        if (again.ok) return;
        expect(again.snapshot).toMatchObject({ state: "acknowledged", leaseId: c.leaseId });
        expect(again.snapshot?.acknowledgedAt?.getTime()).toBe(r.message.acknowledgedAt?.getTime());
        expect((await claim()).claimed).toEqual([]);
        expect(await activities(m)).toEqual(["message.sent", "message.claimed", "message.acknowledged"]);
      });

      it("refuses another lease id (SVC_LEASE_NOT_HELD), a pending message (SVC_LEASE_NOT_HELD) and an acknowledged one under another lease", async () => {
        const pending = await send();
        expect(refusal(await ack(pending, "no-such-lease"), { kind: "ack" }, "no-such-lease")).toBe("SVC_LEASE_NOT_HELD");
        const c = await claimOne();
        expect(refusal(await ack(c, "not-the-lease"), { kind: "ack" }, "not-the-lease")).toBe("SVC_LEASE_NOT_HELD");
        expect((await ack(c, c.leaseId)).ok).toBe(true);
        expect(refusal(await ack(c, "not-the-lease"), { kind: "ack" }, "not-the-lease")).toBe("SVC_LEASE_NOT_HELD");
        expect(refusal(await nack(c, c.leaseId), { kind: "nack", redeliverAfterMs: 0 }, c.leaseId)).toBe("SVC_LEASE_NOT_HELD");
        expect(refusal(await extend(c, c.leaseId), { kind: "extend", visibilityTimeoutMs: 60_000 }, c.leaseId)).toBe("SVC_LEASE_NOT_HELD");
      });

      it("a message that is missing or not the caller's is SVC_RESOURCE_NOT_FOUND (no snapshot)", async () => {
        await send();
        const c = await claimOne();
        const asBystander = await ack(c, c.leaseId, w.bystander);
        expect(asBystander).toMatchObject({ ok: false, snapshot: null });
        expect(refusal(asBystander, { kind: "ack" }, c.leaseId)).toBe("SVC_RESOURCE_NOT_FOUND");
        expect(refusal(await ack({ id: fixtureId() }, c.leaseId), { kind: "ack" }, c.leaseId)).toBe("SVC_RESOURCE_NOT_FOUND");
        const other = await seedWorkspace(h.stores);
        const crossWorkspace = await h.stores.messages.ackIfHeld({ workspaceId: other.workspace.id, messageId: c.id, recipientId: w.recipient.id, leaseId: c.leaseId, outcomeSummary: null, audit: await auditOf(c.id, "message.acknowledged", other.workspace.id) });
        expect(crossWorkspace).toMatchObject({ ok: false, snapshot: null });
        expect((await ack(c, c.leaseId)).ok).toBe(true);
      });
    });

    describe("handOffIfHeld (held -> pending for another recipient)", () => {
      const handOff = async (m: { id: string }, leaseId: string, to: AiAccount, from: AiAccount = w.recipient) =>
        h.stores.messages.handOffIfHeld({ workspaceId: from.workspaceId, messageId: m.id, recipientId: from.id, leaseId, to: { accountId: to.id, friendlyName: to.friendlyName }, audit: await auditOf(m.id, "message.handed_off", from.workspaceId) });

      it("ends the lease and readdresses the message, claimable at once by the new recipient alone, its delivery count kept", async () => {
        const m = await send();
        const c = await claimOne();
        const r = await handOff(c, c.leaseId, w.bystander);
        expect(r.kind).toBe("handed_off");
        if (r.kind !== "handed_off") return;
        expect(r.message).toMatchObject({ id: m.id, state: "pending", recipientId: w.bystander.id, recipientName: w.bystander.friendlyName, senderId: w.sender.id, deliveryCount: 1, leaseId: null });
        // The former holder's lease is gone, and the message with it: it is no longer the holder's.
        const refused = await ack(c, c.leaseId);
        expect(refusal(refused, { kind: "ack" }, c.leaseId)).toBe("SVC_RESOURCE_NOT_FOUND");
        expect((await claim()).claimed).toEqual([]);
        expect(await find(m)).toBeNull();
        const { claimed } = await claim({ recipient: w.bystander });
        expect(claimed.map((x) => [x.id, x.deliveryCount])).toEqual([[m.id, 2]]);
        expect(await find(m, w.sender)).toMatchObject({ recipientId: w.bystander.id });
        expect(await activities(m)).toEqual(["message.sent", "message.claimed", "message.handed_off", "message.claimed"]);
      });

      it("refuses like ack: another lease, a lease run out, another holder's message, and writes nothing", async () => {
        await send();
        const c = await claimOne({ vt: 10 * SECOND_MS });
        expect(refusal(toLease(await handOff(c, "not-the-lease", w.bystander)), { kind: "ack" }, "not-the-lease")).toBe("SVC_LEASE_NOT_HELD");
        expect(refusal(toLease(await handOff(c, c.leaseId, w.sender, w.bystander)), { kind: "ack" }, c.leaseId)).toBe("SVC_RESOURCE_NOT_FOUND");
        await h.advance(11 * SECOND_MS);
        expect(refusal(toLease(await handOff(c, c.leaseId, w.bystander)), { kind: "ack" }, c.leaseId)).toBe("SVC_LEASE_EXPIRED");
        expect(await find(c)).toMatchObject({ recipientId: w.recipient.id });
      });

      it("refuses a new recipient that is the caller, revoked, renamed or of another workspace (recipient_gone), and writes nothing", async () => {
        await send();
        const c = await claimOne();
        const other = await seedWorkspace(h.stores);
        expect((await handOff(c, c.leaseId, w.recipient)).kind).toBe("recipient_gone");
        expect((await handOff(c, c.leaseId, { ...w.bystander, friendlyName: `${w.bystander.friendlyName}-x` })).kind).toBe("recipient_gone");
        expect((await handOff(c, c.leaseId, { ...other.recipient })).kind).toBe("recipient_gone");
        await h.stores.accounts.transition({ workspaceId: w.workspace.id, accountId: w.bystander.id, from: ["active"], to: "revoked", now: await now() });
        expect((await handOff(c, c.leaseId, w.bystander)).kind).toBe("recipient_gone");
        expect((await ack(c, c.leaseId)).ok).toBe(true);
      });
    });

    describe("held for approval (acceptSend with an approval policy, decideApproval)", () => {
      const holdBy = async (name: string, holds: Partial<ApprovalHolds>) =>
        h.stores.policies.publish({ workspaceId: w.workspace.id, name, newId: fixtureId(), required: false, kind: "approval", holds: { templates: null, recipients: null, senders: null, priorities: null, requireStepUp: false, ...holds }, body: "A person decides.", publishedAt: await now(), publishedBy: null });
      const sendHeld = async (overrides: Partial<NewMessage> = {}, idempotency: IdempotencyRecord | null = null) => {
        const t = await now();
        const message = makeNewMessage({ sender: w.sender, recipient: w.recipient, now: t }, overrides);
        const audit = makeAuditEntry(w.workspace.id, { activity: "message.sent", messageId: message.id, subjectType: "message", subjectId: message.id, occurredAt: t });
        // After the sent row's id, as the send use case takes it: the timeline orders rows of one instant by id.
        const heldAuditId = fixtureId();
        const r = await h.stores.messages.acceptSend({ message, audit, heldAuditId, idempotency });
        if (r.kind !== "accepted") throw new Error(`send: ${r.kind}`);
        return r;
      };
      const decide = async (m: { id: string }, approve: boolean) => h.stores.messages.decideApproval({ workspaceId: w.workspace.id, messageId: m.id, approve, audit: await auditOf(m.id, approve ? "message.approved" : "message.rejected") });

      it("holds a send every populated dimension of a current approval policy matches; it is never claimed; the idempotent body says so", async () => {
        const policy = await holdBy("hold-directives", { templates: ["directive"], recipients: [w.recipient.friendlyName], priorities: ["normal"] });
        await holdBy("hold-urgent-elsewhere", { priorities: ["urgent"], senders: [w.bystander.friendlyName] });
        const record = makeIdempotencyRecord({ workspaceId: w.workspace.id, accountId: w.sender.id, now: await now() }, { status: 201, bodyText: JSON.stringify({ message_id: "m", state: "pending" }) });
        const held = await sendHeld({}, record);
        expect(held.heldBy).toEqual({ policyId: policy.id, policyName: policy.name });
        expect(held.message).toMatchObject({ state: "held_for_approval", approvalPolicyId: policy.id });
        expect(JSON.parse((await h.stores.idempotency.find({ workspaceId: w.workspace.id, accountId: w.sender.id, key: record.key }))?.bodyText ?? "{}")).toEqual({ message_id: "m", state: "held_for_approval", approval: { policy_id: policy.id, policy_name: policy.name } });
        expect(await activities(held.message)).toEqual(["message.sent", "message.held_for_approval"]);
        const free = await sendHeld({ priority: "urgent" }, null);
        expect(free.heldBy).toBeUndefined();
        const note = await sendHeld({ template: "note", payload: { text: "x" } });
        expect(note.message.state).toBe("pending");
        expect((await claim()).claimed.map((m) => m.id).sort()).toEqual([free.message.id, note.message.id].sort());
        expect(await h.stores.messages.countHeldForApproval({ workspaceId: w.workspace.id, limit: 10 })).toBe(1);
        expect((await h.stores.messages.listHeldForApproval({ workspaceId: w.workspace.id, after: null, limit: 10 })).map((m) => m.id)).toEqual([held.message.id]);
        // A later version of kind acknowledgement ends the hold.
        await h.stores.policies.publish({ workspaceId: w.workspace.id, name: "hold-directives", newId: fixtureId(), required: false, kind: "acknowledgement", holds: null, body: "No more.", publishedAt: await now(), publishedBy: null });
        expect((await sendHeld()).message.state).toBe("pending");
      });

      it("approves (pending, claimable at once) or rejects (terminal) once; refuses an expired one; writes nothing when refused", async () => {
        await holdBy("hold-all-directives", { templates: ["directive"] });
        const a = (await sendHeld()).message;
        const b = (await sendHeld()).message;
        const c = (await sendHeld({ expiresAt: new Date((await now()).getTime() + 5 * SECOND_MS) })).message;
        const approved = await decide(a, true);
        expect(approved).toMatchObject({ kind: "decided", message: { id: a.id, state: "pending" } });
        expect((await decide(a, false)).kind).toBe("refused");
        const rejected = await decide(b, false);
        expect(rejected).toMatchObject({ kind: "decided", message: { id: b.id, state: "rejected" } });
        const again = await decide(b, true);
        expect(again).toMatchObject({ kind: "refused", snapshot: { id: b.id, state: "rejected" } });
        expect((await claim()).claimed.map((m) => m.id)).toEqual([a.id]);
        await h.advance(6 * SECOND_MS);
        const late = await decide(c, true);
        expect(late.kind).toBe("refused");
        if (late.kind === "refused") expect(late.snapshot?.state).toBe("held_for_approval");
        expect(await h.stores.messages.listHeldForApproval({ workspaceId: w.workspace.id, after: null, limit: 10 })).toEqual([]);
        expect(await h.stores.messages.expireDue({ auditIds: ids(10) })).toBeGreaterThanOrEqual(1);
        expect(await find(c, w.sender)).toMatchObject({ state: "expired" });
        expect(await activities(b)).toEqual(["message.sent", "message.held_for_approval", "message.rejected"]);
        // Another workspace decides nothing.
        const other = await seedWorkspace(h.stores);
        const foreign = await h.stores.messages.decideApproval({ workspaceId: other.workspace.id, messageId: c.id, approve: true, audit: await auditOf(c.id, "message.approved", other.workspace.id) });
        expect(foreign).toMatchObject({ kind: "refused", snapshot: null });
      });
    });

    describe("threads (listThread, claimBatch with threadId)", () => {
      const thread = (threadId: string, account: AiAccount | null, after: string | null = null, limit = 10) =>
        h.stores.messages.listThread({ workspaceId: w.workspace.id, threadId, accountId: account?.id ?? null, after, limit });

      it("stores in_reply_to and thread_id; lists a thread's messages oldest first, the account's own only, paged after an id", async () => {
        const root = await send();
        const reply = await send({ inReplyTo: root.id, threadId: root.id }, w.recipient, w.sender);
        const aside = await send({ inReplyTo: reply.id, threadId: root.id }, w.sender, w.bystander);
        await send();
        expect(reply).toMatchObject({ inReplyTo: root.id, threadId: root.id });
        expect(await find(reply, w.sender)).toMatchObject({ inReplyTo: root.id, threadId: root.id });
        expect(root).toMatchObject({ inReplyTo: null, threadId: null });
        expect((await thread(root.id, null)).map((m) => m.id)).toEqual([root.id, reply.id, aside.id]);
        expect((await thread(root.id, w.recipient)).map((m) => m.id)).toEqual([root.id, reply.id]);
        expect((await thread(root.id, w.bystander)).map((m) => m.id)).toEqual([aside.id]);
        expect((await thread(root.id, w.sender, root.id, 1)).map((m) => m.id)).toEqual([reply.id, aside.id]);
        expect((await thread(root.id, w.sender, null, 0)).map((m) => m.id)).toEqual([root.id]);
        // A reply's id names no thread of its own; another workspace sees nothing.
        expect(await thread(reply.id, null)).toEqual([]);
        const other = await seedWorkspace(h.stores);
        expect(await h.stores.messages.listThread({ workspaceId: other.workspace.id, threadId: root.id, accountId: null, after: null, limit: 10 })).toEqual([]);
      });

      it("claims only the thread's messages when a thread is named (its first message included)", async () => {
        const root = await send({}, w.recipient, w.sender);
        const before = await send();
        const answer = await send({ inReplyTo: root.id, threadId: root.id });
        const ownRoot = await send();
        const claimThread = (threadId: string) =>
          h.stores.messages.claimBatch({ workspaceId: w.workspace.id, recipientId: w.recipient.id, max: 10, visibilityTimeoutMs: 60 * SECOND_MS, maxDeliveries: 10, auditIds: ids(10), requestId: null, credentialId: null, threadId });
        expect((await claimThread(root.id)).claimed.map((m) => m.id)).toEqual([answer.id]);
        expect((await claimThread(root.id)).claimed).toEqual([]);
        expect((await claimThread(ownRoot.id)).claimed.map((m) => m.id)).toEqual([ownRoot.id]);
        expect((await claim()).claimed.map((m) => m.id)).toEqual([before.id]);
      });
    });

    describe("ackBatchIfHeld (held -> acknowledged, many at once)", () => {
      const ackBatch = async (items: { m: { id: string }; leaseId: string; outcomeSummary?: string | null }[], recipient: AiAccount = w.recipient) =>
        h.stores.messages.ackBatchIfHeld({
          workspaceId: recipient.workspaceId,
          recipientId: recipient.id,
          items: await Promise.all(items.map(async (i) => ({ messageId: i.m.id, leaseId: i.leaseId, outcomeSummary: i.outcomeSummary ?? null, audit: await auditOf(i.m.id, "message.acknowledged", recipient.workspaceId) }))),
        });

      it("acknowledges every item under its own live lease, with its own outcome and audit row, results in item order", async () => {
        for (let i = 0; i < 5; i++) await send();
        const { claimed } = await claim({ max: 5 });
        expect(claimed).toHaveLength(5);
        const t = (await now()).getTime();
        const reversed = [...claimed].reverse();
        const results = await ackBatch(reversed.map((c, i) => ({ m: c, leaseId: c.leaseId as string, outcomeSummary: i % 2 === 0 ? `outcome ${i}` : null })));
        expect(results).toHaveLength(5);
        results.forEach((r, i) => {
          expect(r.ok).toBe(true);
          if (!r.ok) return;
          expect(r.message).toMatchObject({ id: reversed[i]?.id, state: "acknowledged", leaseId: reversed[i]?.leaseId, outcomeSummary: i % 2 === 0 ? `outcome ${i}` : null });
          expectNear(r.message.acknowledgedAt, t);
        });
        for (const c of claimed) expect(await activities(c)).toEqual(["message.sent", "message.claimed", "message.acknowledged"]);
        expect((await claim()).claimed).toEqual([]);
      });

      it("refuses each item on its own: the others are acknowledged; refused items carry the snapshot the single ack would", async () => {
        for (let i = 0; i < 3; i++) await send();
        const pending = await send(); // the fourth: not among the three claimed
        const { claimed } = await claim({ max: 3 });
        const [a, b, c] = claimed as (MessageRecord & { leaseId: string })[];
        if (!a || !b || !c) throw new Error("expected three claimed messages");
        expect((await ack(b, b.leaseId)).ok).toBe(true);
        const missing = { id: fixtureId() };
        const results = await ackBatch([
          { m: a, leaseId: a.leaseId },
          { m: b, leaseId: "not-the-lease" },
          { m: missing, leaseId: a.leaseId },
          { m: c, leaseId: c.leaseId },
          { m: pending, leaseId: "no-such-lease" },
        ]);
        expect(results.map((r) => r.ok)).toEqual([true, false, false, true, false]);
        expect(refusal(results[1] as LeaseWriteResult, { kind: "ack" }, "not-the-lease")).toBe("SVC_LEASE_NOT_HELD");
        expect(refusal(results[2] as LeaseWriteResult, { kind: "ack" }, a.leaseId)).toBe("SVC_RESOURCE_NOT_FOUND");
        expect(refusal(results[4] as LeaseWriteResult, { kind: "ack" }, "no-such-lease")).toBe("SVC_LEASE_NOT_HELD");
        // The repeat of an acknowledged message with its own lease reports the acknowledged snapshot.
        const [again] = await ackBatch([{ m: b, leaseId: b.leaseId }]);
        expect(again).toMatchObject({ ok: false, snapshot: { id: b.id, state: "acknowledged", leaseId: b.leaseId } });
        expect(await activities(a)).toEqual(["message.sent", "message.claimed", "message.acknowledged"]);
        expect(await activities(b)).toEqual(["message.sent", "message.claimed", "message.acknowledged"]);
      });

      it("never acknowledges another recipient's or another workspace's message", async () => {
        await send();
        const c = await claimOne();
        const [asBystander] = await ackBatch([{ m: c, leaseId: c.leaseId }], w.bystander);
        expect(asBystander).toMatchObject({ ok: false, snapshot: null });
        const other = await seedWorkspace(h.stores);
        const cross = await h.stores.messages.ackBatchIfHeld({ workspaceId: other.workspace.id, recipientId: w.recipient.id, items: [{ messageId: c.id, leaseId: c.leaseId, outcomeSummary: null, audit: await auditOf(c.id, "message.acknowledged", other.workspace.id) }] });
        expect(cross).toMatchObject([{ ok: false, snapshot: null }]);
        expect((await ack(c, c.leaseId)).ok).toBe(true);
      });

      it("two concurrent batches naming the same messages acknowledge each message once", async () => {
        for (let i = 0; i < 20; i++) await send();
        const { claimed } = await claim({ max: 20 });
        const items = claimed.map((c) => ({ m: c, leaseId: c.leaseId as string }));
        const [first, second] = await Promise.all([ackBatch(items), ackBatch([...items].reverse())]);
        const okFirst = (first ?? []).filter((r) => r.ok).length;
        const okSecond = (second ?? []).filter((r) => r.ok).length;
        expect(okFirst + okSecond).toBe(20);
        for (const c of claimed) expect(await activities(c)).toEqual(["message.sent", "message.claimed", "message.acknowledged"]);
      });
    });

    describe("nack (held -> pending at the redelivery time)", () => {
      it("returns the message to pending at now + redeliver_after, clears the lease and audits", async () => {
        const m = await send();
        const c = await claimOne();
        const t = (await now()).getTime();
        const r = await nack(c, c.leaseId, MINUTE_MS);
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        expect(r.message).toMatchObject({ state: "pending", leaseId: null });
        expectNear(r.message.visibleAt, t + MINUTE_MS);
        expectNear(r.message.lastNackedAt, t);
        expect((await claim()).claimed).toEqual([]);
        await h.advance(MINUTE_MS + SECOND_MS);
        const again = await claimOne();
        expect(again).toMatchObject({ id: m.id, deliveryCount: 2 });
        expect(await activities(m)).toEqual(["message.sent", "message.claimed", "message.nacked", "message.claimed"]);
      });

      it("allows one nack per 30 s per message: SVC_NACK_RATE_LIMITED with a retry delay, then allowed", async () => {
        await send();
        const c1 = await claimOne();
        expect((await nack(c1, c1.leaseId)).ok).toBe(true);
        const c2 = await claimOne({ vt: 10 * SECOND_MS });
        const r = await nack(c2, c2.leaseId);
        expect(refusal(r, { kind: "nack", redeliverAfterMs: 0 }, c2.leaseId)).toBe("SVC_NACK_RATE_LIMITED");
        if (r.ok) return;
        const e = leaseRefusal({ op: { kind: "nack", redeliverAfterMs: 0 }, leaseId: c2.leaseId, snapshot: r.snapshot, now: r.now });
        expect(e.retryAfterSeconds).toBeGreaterThanOrEqual(1);
        expect(e.retryAfterSeconds).toBeLessThanOrEqual(30);
        expect(await find(c2)).toMatchObject({ state: "held", leaseId: c2.leaseId });
        await h.advance(30 * SECOND_MS);
        const c3 = await claimOne({ vt: 600 * SECOND_MS });
        expect(c3.leaseId).not.toBe(c2.leaseId);
        expect((await nack(c3, c3.leaseId)).ok).toBe(true);
      });

      it("refuses a redelivery at or past the message expiry (SVC_MALFORMED_REQUEST), leaving the lease held", async () => {
        const t = await now();
        await send({ expiresAt: new Date(t.getTime() + 10 * MINUTE_MS) });
        const c = await claimOne();
        expect(refusal(await nack(c, c.leaseId, 20 * MINUTE_MS), { kind: "nack", redeliverAfterMs: 20 * MINUTE_MS }, c.leaseId)).toBe("SVC_MALFORMED_REQUEST");
        expect(await find(c)).toMatchObject({ state: "held", leaseId: c.leaseId });
      });
    });

    describe("extend_lease (held -> held with a later expiry)", () => {
      it("moves the lease expiry to now + visibility timeout and counts the extension", async () => {
        const m = await send();
        const c = await claimOne({ vt: 30 * SECOND_MS });
        const t = (await now()).getTime();
        const r = await extend(c, c.leaseId, 300 * SECOND_MS);
        expect(r.ok).toBe(true);
        if (!r.ok) return;
        expect(r.message).toMatchObject({ state: "held", leaseId: c.leaseId, leaseExtensions: 1 });
        expectNear(r.message.visibleAt, t + 300 * SECOND_MS);
        expectNear(r.message.lastExtendedAt, t);
        await h.advance(60 * SECOND_MS);
        expect((await claim()).claimed).toEqual([]);
        expect((await ack(c, c.leaseId)).ok).toBe(true);
        expect(await activities(m)).toEqual(["message.sent", "message.claimed", "message.lease_extended", "message.acknowledged"]);
      });

      it("allows one extension per 10 s: SVC_EXTEND_RATE_LIMITED with a retry delay", async () => {
        await send();
        const c = await claimOne();
        expect((await extend(c, c.leaseId, 200 * SECOND_MS)).ok).toBe(true);
        const r = await extend(c, c.leaseId, 300 * SECOND_MS);
        expect(refusal(r, { kind: "extend", visibilityTimeoutMs: 300_000 }, c.leaseId)).toBe("SVC_EXTEND_RATE_LIMITED");
        if (r.ok) return;
        expect(leaseRefusal({ op: { kind: "extend", visibilityTimeoutMs: 300_000 }, leaseId: c.leaseId, snapshot: r.snapshot, now: r.now }).retryAfterSeconds).toBeGreaterThanOrEqual(1);
        await h.advance(10 * SECOND_MS);
        expect((await extend(c, c.leaseId, 300 * SECOND_MS)).ok).toBe(true);
      });

      it("refuses the 31st extension of a lease (SVC_LEASE_EXTENSION_LIMIT_EXCEEDED)", async () => {
        await send();
        const c = await claimOne({ vt: 600 * SECOND_MS });
        for (let i = 1; i <= 30; i++) {
          await h.advance(10 * SECOND_MS);
          const r = await extend(c, c.leaseId, 600 * SECOND_MS);
          expect(r.ok).toBe(true);
          if (r.ok) expect(r.message.leaseExtensions).toBe(i);
        }
        await h.advance(10 * SECOND_MS);
        expect(refusal(await extend(c, c.leaseId, 600 * SECOND_MS), { kind: "extend", visibilityTimeoutMs: 600_000 }, c.leaseId)).toBe("SVC_LEASE_EXTENSION_LIMIT_EXCEEDED");
      }, 60_000);

      it("clamps to claim time + 1 h, then refuses with SVC_LEASE_AT_CUMULATIVE_CEILING", async () => {
        await send();
        const c = await claimOne({ vt: 600 * SECOND_MS });
        const claimedAt = (c.leaseClaimedAt as Date).getTime();
        let elapsed = 0;
        for (let i = 0; i < 5; i++) {
          await h.advance(500 * SECOND_MS);
          elapsed += 500 * SECOND_MS;
          expect((await extend(c, c.leaseId, 600 * SECOND_MS)).ok).toBe(true);
        }
        await h.advance(3000 * SECOND_MS - elapsed + 30 * SECOND_MS);
        const clamped = await extend(c, c.leaseId, 600 * SECOND_MS);
        expect(clamped.ok).toBe(true);
        if (!clamped.ok) return;
        // The cap is relative to the claim; `advance` may shift stored times, so compare with the stored claim time.
        expect(clamped.message.visibleAt.getTime()).toBe((clamped.message.leaseClaimedAt as Date).getTime() + HOUR_MS);
        expect(claimedAt).toBeGreaterThan(0);
        await h.advance(10 * SECOND_MS);
        expect(refusal(await extend(c, c.leaseId, 600 * SECOND_MS), { kind: "extend", visibilityTimeoutMs: 600_000 }, c.leaseId)).toBe("SVC_LEASE_AT_CUMULATIVE_CEILING");
      });

      it("refuses an extension past the message's own expiry (SVC_LEASE_AT_TTL_CEILING)", async () => {
        const t = await now();
        await send({ expiresAt: new Date(t.getTime() + 5 * MINUTE_MS) });
        const c = await claimOne({ vt: 60 * SECOND_MS });
        expect(refusal(await extend(c, c.leaseId, 600 * SECOND_MS), { kind: "extend", visibilityTimeoutMs: 600_000 }, c.leaseId)).toBe("SVC_LEASE_AT_TTL_CEILING");
        expect((await extend(c, c.leaseId, 120 * SECOND_MS)).ok).toBe(true);
      });

      it("refuses an extension that would not move the expiry later (SVC_MALFORMED_REQUEST)", async () => {
        await send();
        const c = await claimOne({ vt: 600 * SECOND_MS });
        expect(refusal(await extend(c, c.leaseId, 60 * SECOND_MS), { kind: "extend", visibilityTimeoutMs: 60_000 }, c.leaseId)).toBe("SVC_MALFORMED_REQUEST");
      });
    });

    describe("expiry (any -> expired)", () => {
      it("a held message past its expiry refuses ack, nack and extend with SVC_EXPIRED; the sweep marks it expired with an audit row", async () => {
        const t = await now();
        const m = await send({ expiresAt: new Date(t.getTime() + 20 * SECOND_MS) });
        const pending = await send({ expiresAt: new Date(t.getTime() + 20 * SECOND_MS) });
        const c = await claimOne({ vt: 600 * SECOND_MS });
        expect(c.id).toBe(m.id);
        await h.advance(21 * SECOND_MS);
        expect(refusal(await ack(c, c.leaseId), { kind: "ack" }, c.leaseId)).toBe("SVC_EXPIRED");
        expect(refusal(await nack(c, c.leaseId), { kind: "nack", redeliverAfterMs: 0 }, c.leaseId)).toBe("SVC_EXPIRED");
        expect(refusal(await extend(c, c.leaseId), { kind: "extend", visibilityTimeoutMs: 120_000 }, c.leaseId)).toBe("SVC_EXPIRED");
        let marked = 0;
        for (;;) {
          const n = await h.stores.messages.expireDue({ auditIds: ids(100) });
          marked += n;
          if (n < 100) break;
        }
        expect(marked).toBeGreaterThanOrEqual(2);
        expect(await find(m)).toMatchObject({ state: "expired" });
        expect(await find(pending)).toMatchObject({ state: "expired" });
        expect(await activities(m)).toEqual(["message.sent", "message.claimed", "message.expired"]);
        expect(refusal(await ack(c, c.leaseId), { kind: "ack" }, c.leaseId)).toBe("SVC_EXPIRED");
        expect(await h.stores.messages.expireDue({ auditIds: ids(100) })).toBeGreaterThanOrEqual(0);
        expect(await activities(pending)).toEqual(["message.sent", "message.expired"]);
      });

      it("does not expire acknowledged or dead-lettered messages", async () => {
        const t = await now();
        const m = await send({ expiresAt: new Date(t.getTime() + 20 * SECOND_MS) });
        const c = await claimOne();
        expect((await ack(c, c.leaseId)).ok).toBe(true);
        await h.advance(21 * SECOND_MS);
        await h.stores.messages.expireDue({ auditIds: ids(100) });
        expect(await find(m)).toMatchObject({ state: "acknowledged" });
      });
    });

    describe("dead letters (release -> pending, purge -> gone)", () => {
      async function deadLetter(): Promise<MessageRecord> {
        const m = await send();
        await claimOne({ vt: 10 * SECOND_MS });
        await h.advance(11 * SECOND_MS);
        expect((await claim({ maxDeliveries: 1 })).deadLettered).toEqual([m.id]);
        return m;
      }

      it("lists dead-lettered messages of the workspace, newest first, with keyset paging", async () => {
        const a = await deadLetter();
        const b = await deadLetter();
        await send();
        const first = await h.stores.messages.listDeadLettered({ workspaceId: w.workspace.id, after: null, limit: 1 });
        expect(first.map((m) => m.id)).toEqual([b.id, a.id]);
        const second = await h.stores.messages.listDeadLettered({ workspaceId: w.workspace.id, after: b.id, limit: 1 });
        expect(second.map((m) => m.id)).toEqual([a.id]);
        const other = await seedWorkspace(h.stores);
        expect(await h.stores.messages.listDeadLettered({ workspaceId: other.workspace.id, after: null, limit: 10 })).toEqual([]);
      });

      it("countWaiting counts pending and held messages per recipient (expired ones left out) and the dead letters, of one workspace", async () => {
        await deadLetter();
        const soon = await send({ expiresAt: new Date((await now()).getTime() + 5 * SECOND_MS) }, w.sender, w.bystander);
        await h.advance(6 * SECOND_MS);
        for (let i = 0; i < 3; i++) await send();
        await claimOne();
        await send({}, w.sender, w.bystander);
        const counts = await h.stores.messages.countWaiting({ workspaceId: w.workspace.id, now: await now() });
        expect(counts.deadLettered).toBe(1);
        const expected = [
          { accountId: w.recipient.id, friendlyName: w.recipient.friendlyName, pending: 2, held: 1 },
          { accountId: w.bystander.id, friendlyName: w.bystander.friendlyName, pending: 1, held: 0 },
        ].sort((a, b) => (a.friendlyName < b.friendlyName ? -1 : 1));
        expect(counts.recipients).toEqual(expected);
        expect(soon.state).toBe("pending");
        const other = await seedWorkspace(h.stores);
        expect(await h.stores.messages.countWaiting({ workspaceId: other.workspace.id, now: await now() })).toEqual({ recipients: [], deadLettered: 0 });
      });

      it("a held message whose lease ran out counts and lists as pending, not held", async () => {
        const m = await send();
        await claimOne({ vt: 10 * SECOND_MS });
        const waiting = async () => (await h.stores.messages.countWaiting({ workspaceId: w.workspace.id, now: await now() })).recipients.map((r) => [r.pending, r.held]);
        const listed = (state: MessageRecord["state"]) => h.stores.messages.listForParticipant({ workspaceId: w.workspace.id, accountId: null, role: "any", state, after: null, limit: 10 }).then((ms) => ms.map((x) => x.id));
        expect(await waiting()).toEqual([[0, 1]]);
        expect(await listed("held")).toEqual([m.id]);
        await h.advance(11 * SECOND_MS);
        expect(await waiting()).toEqual([[1, 0]]);
        expect(await listed("held")).toEqual([]);
        expect(await listed("pending")).toEqual([m.id]);
      });

      it("release returns it to pending with the delivery count reset; purge deletes it but keeps its audit rows", async () => {
        const m = await deadLetter();
        const released = await h.stores.messages.release({ workspaceId: w.workspace.id, messageId: m.id, audit: await auditOf(m.id, "message.released") });
        expect(released).toMatchObject({ id: m.id, state: "pending", deliveryCount: 0 });
        expect(await h.stores.messages.release({ workspaceId: w.workspace.id, messageId: m.id, audit: await auditOf(m.id, "message.released") })).toBeNull();
        expect(await h.stores.messages.purge({ workspaceId: w.workspace.id, messageId: m.id, audit: await auditOf(m.id, "message.purged") })).toBe(false);
        const c = await claimOne({ vt: 10 * SECOND_MS });
        expect(c).toMatchObject({ id: m.id, deliveryCount: 1 });
        await h.advance(11 * SECOND_MS);
        expect((await claim({ maxDeliveries: 1 })).deadLettered).toEqual([m.id]);
        const other = await seedWorkspace(h.stores);
        expect(await h.stores.messages.purge({ workspaceId: other.workspace.id, messageId: m.id, audit: await auditOf(m.id, "message.purged", other.workspace.id) })).toBe(false);
        expect(await h.stores.messages.purge({ workspaceId: w.workspace.id, messageId: m.id, audit: await auditOf(m.id, "message.purged") })).toBe(true);
        expect(await find(m)).toBeNull();
        expect(await h.stores.messages.purge({ workspaceId: w.workspace.id, messageId: m.id, audit: await auditOf(m.id, "message.purged") })).toBe(false);
        expect(await activities(m)).toEqual(["message.sent", "message.claimed", "message.dead_lettered", "message.released", "message.claimed", "message.dead_lettered", "message.purged"]);
      });
    });

    describe("listForParticipant", () => {
      it("lists by role and effective state, newest first, with keyset paging returning up to limit + 1", async () => {
        const t = await now();
        const received1 = await send();
        const sentByRecipient = await send({}, w.recipient, w.sender);
        const received2 = await send({ expiresAt: new Date(t.getTime() + 20 * SECOND_MS) });
        const unrelated = await send({}, w.sender, w.bystander);
        const list = (role: "sent" | "received" | "any", state: MessageRecord["state"] | null = null, after: string | null = null, limit = 10) =>
          h.stores.messages.listForParticipant({ workspaceId: w.workspace.id, accountId: w.recipient.id, role, state, after, limit }).then((ms) => ms.map((m) => m.id));
        expect(await list("any")).toEqual([received2.id, sentByRecipient.id, received1.id]);
        expect(await list("received")).toEqual([received2.id, received1.id]);
        expect(await list("sent")).toEqual([sentByRecipient.id]);
        expect(await list("any", null, null, 1)).toEqual([received2.id, sentByRecipient.id]);
        expect(await list("any", null, sentByRecipient.id, 1)).toEqual([received1.id]);
        await h.advance(21 * SECOND_MS);
        expect(await list("any", "expired")).toEqual([received2.id]);
        expect(await list("received", "pending")).toEqual([received1.id]);
        expect((await list("any")).includes(unrelated.id)).toBe(false);
      });

      it("matches the recipient's and sender's names and the template as the envelope records them, across the workspace with no account", async () => {
        const toRecipient = await send();
        const toBystander = await send({ template: "result" }, w.sender, w.bystander);
        const fromRecipient = await send({}, w.recipient, w.bystander);
        const list = (match: { recipientName?: string; senderName?: string; template?: string }) =>
          h.stores.messages.listForParticipant({ workspaceId: w.workspace.id, accountId: null, role: "any", state: null, match, after: null, limit: 10 }).then((ms) => ms.map((m) => m.id));
        expect(await list({})).toEqual([fromRecipient.id, toBystander.id, toRecipient.id]);
        expect(await list({ recipientName: w.bystander.friendlyName })).toEqual([fromRecipient.id, toBystander.id]);
        expect(await list({ senderName: w.recipient.friendlyName })).toEqual([fromRecipient.id]);
        expect(await list({ template: "result" })).toEqual([toBystander.id]);
        expect(await list({ recipientName: w.bystander.friendlyName, senderName: w.sender.friendlyName })).toEqual([toBystander.id]);
        expect(await list({ recipientName: "nobody" })).toEqual([]);
      });

      it("searches by message id or correlation id, exactly", async () => {
        const a = await send({ correlationId: "job-7" });
        const b = await send({ correlationId: "job-7" }, w.sender, w.bystander);
        const c = await send({ correlationId: "job-70" });
        const list = (search: string) => h.stores.messages.listForParticipant({ workspaceId: w.workspace.id, accountId: null, role: "any", state: null, match: { search }, after: null, limit: 10 }).then((ms) => ms.map((m) => m.id));
        expect(await list("job-7")).toEqual([b.id, a.id]);
        expect(await list(c.id)).toEqual([c.id]);
        expect(await list("job")).toEqual([]);
      });
    });

    describe("inbox (inboxOf, becameClaimable)", () => {
      it("inboxOf counts the recipient's claimable messages by priority up to the limit and shows the oldest, its payload unread", async () => {
        const t = (await now()).getTime();
        const at = (ms: number) => ({ acceptedAt: new Date(t + ms), visibleAt: new Date(t + ms) });
        const oldest = await send({ priority: "normal", correlationId: "first", ...at(-5 * SECOND_MS) });
        const urgent = await send({ priority: "urgent", ...at(-4 * SECOND_MS) });
        await send({ priority: "normal", ...at(-3 * SECOND_MS) });
        await send({ priority: "normal", ...at(-2 * SECOND_MS) });
        await send({ priority: "low", ...at(-1 * SECOND_MS) });
        await send({ priority: "high", acceptedAt: new Date(t), visibleAt: new Date(t + MINUTE_MS) });
        await send({ priority: "high" }, w.sender, w.bystander);
        const claimed = await claimOne({ vt: 10 * SECOND_MS });
        expect(claimed.id).toBe(urgent.id);

        const inbox = await h.stores.messages.inboxOf({ workspaceId: w.workspace.id, recipientId: w.recipient.id, countLimit: 2 });
        expect(inbox.claimable).toEqual({ urgent: 0, high: 0, normal: 2, low: 1 });
        expect(inbox.oldest).toMatchObject({ id: oldest.id, senderName: w.sender.friendlyName, recipientName: w.recipient.friendlyName, priority: "normal", correlationId: "first", deliveryCount: 0, payload: null });
        expectNear(inbox.now, t);
        expect((await h.stores.messages.inboxOf({ workspaceId: w.workspace.id, recipientId: w.recipient.id, countLimit: 10 })).claimable.normal).toBe(3);

        await h.advance(11 * SECOND_MS);
        expect((await h.stores.messages.inboxOf({ workspaceId: w.workspace.id, recipientId: w.recipient.id, countLimit: 10 })).claimable.urgent).toBe(1);
        const other = await seedWorkspace(h.stores);
        expect(await h.stores.messages.inboxOf({ workspaceId: other.workspace.id, recipientId: w.recipient.id, countLimit: 10 })).toMatchObject({ claimable: { urgent: 0, high: 0, normal: 0, low: 0 }, oldest: null });
      });

      it("becameClaimable names a watched recipient whose lease ran out or whose delivery delay ended, and the next such moment", async () => {
        const watched = [
          { workspaceId: w.workspace.id, recipientId: w.recipient.id },
          { workspaceId: w.workspace.id, recipientId: w.bystander.id },
        ];
        const became = async (sinceMs: number, scanLimit = 100) => h.stores.messages.becameClaimable({ recipients: watched, after: new Date((await now()).getTime() - sinceMs), scanLimit });
        await send();
        // A send claimable at once notified; time passing makes nothing claimable.
        expect(await became(SLACK_MS)).toMatchObject({ due: [], nextAt: null });
        await claimOne({ vt: 10 * SECOND_MS });
        const t = (await now()).getTime();
        await send({ visibleAt: new Date(t + 30 * SECOND_MS) }, w.sender, w.bystander);
        const before = await became(SLACK_MS);
        expect(before.due).toEqual([]);
        expectNear(before.nextAt, t + 10 * SECOND_MS);

        await h.advance(11 * SECOND_MS);
        const leaseRanOut = await became(SLACK_MS);
        expect(leaseRanOut.due).toEqual([watched[0]]);
        // 19 s ahead of now, whether time moved forward (a clock) or the rows moved back (PostgreSQL's harness).
        expectNear(leaseRanOut.nextAt, (await now()).getTime() + 19 * SECOND_MS);
        expect((await became(0)).due).toEqual([]);

        await h.advance(20 * SECOND_MS);
        expect((await became(SLACK_MS)).due).toEqual([watched[1]]);
        // Only the watched recipients are looked at.
        expect((await h.stores.messages.becameClaimable({ recipients: [watched[0] as (typeof watched)[number]], after: new Date((await now()).getTime() - 30 * SECOND_MS), scanLimit: 100 })).due).toEqual([watched[0]]);
      });

      it("becameClaimable counts a nack's redelivery delay when it ends, not a nack without delay, and looks at most scanLimit rows per recipient", async () => {
        const watched = [{ workspaceId: w.workspace.id, recipientId: w.recipient.id }];
        const became = async (scanLimit = 100) => h.stores.messages.becameClaimable({ recipients: watched, after: new Date((await now()).getTime() - SLACK_MS), scanLimit });
        await send({ priority: "low" });
        await send({ priority: "low" });
        const { claimed } = await claim({ max: 2 });
        const [first, second] = claimed as [MessageRecord, MessageRecord];
        expect((await nack(first, first.leaseId as string, 0)).ok).toBe(true);
        const t = (await now()).getTime();
        expect((await nack(second, second.leaseId as string, MINUTE_MS)).ok).toBe(true);
        const nacked = await became();
        expect(nacked.due).toEqual([]);
        expectNear(nacked.nextAt, t + MINUTE_MS);
        // Three urgent messages ahead of the delayed one in claim order.
        for (let i = 0; i < 3; i++) await send({ priority: "urgent" });
        await h.advance(MINUTE_MS + SECOND_MS);
        expect((await became(3)).due).toEqual([]);
        expect((await became()).due).toEqual(watched);
      });
    });
  });
}
