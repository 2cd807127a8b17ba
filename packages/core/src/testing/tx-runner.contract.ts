import { beforeEach, describe, expect, it } from "vitest";
import type { NewMessage } from "../messaging/message.ts";
import { fixtureId } from "./access-fixtures.ts";
import { seedWorkspace, type MessagingHarness, type MessagingHarnessFactory, type SeededWorkspace } from "./messaging-harness.ts";
import { makeAuditEntry, makeIdempotencyRecord, makeNewMessage } from "./messaging-fixtures.ts";

/**
 * The contract every TxRunner passes (InMemoryTxRunner, PgTxRunner): commit on return, rollback
 * of every write of the transaction (and only of that transaction) on throw, a send's rows
 * included; stores inside the transaction see its own writes.
 * @param make returns the harness, called before each test.
 */
export function describeTxRunnerContract(make: MessagingHarnessFactory): void {
  describe("TxRunner contract", () => {
    let h: MessagingHarness;
    let w: SeededWorkspace;

    beforeEach(async () => {
      h = await make();
      w = await seedWorkspace(h.stores);
    });

    async function sendParts(): Promise<{ message: NewMessage; audit: ReturnType<typeof makeAuditEntry>; idempotency: ReturnType<typeof makeIdempotencyRecord> }> {
      const now = await h.stores.messages.now();
      const message = makeNewMessage({ sender: w.sender, recipient: w.recipient, now });
      return {
        message,
        audit: makeAuditEntry(w.workspace.id, { activity: "message.sent", messageId: message.id, subjectType: "message", subjectId: message.id, occurredAt: now }),
        idempotency: makeIdempotencyRecord({ workspaceId: w.workspace.id, accountId: w.sender.id, now }, { status: 201, bodyText: JSON.stringify({ message_id: message.id }) }),
      };
    }
    const findMessage = (id: string) => h.stores.messages.findForParticipant({ workspaceId: w.workspace.id, messageId: id, accountId: w.recipient.id });
    const findKey = (key: string) => h.stores.idempotency.find({ workspaceId: w.workspace.id, accountId: w.sender.id, key });
    const timeline = (id: string) => h.stores.audit.timeline({ workspaceId: w.workspace.id, messageId: id });

    it("commits when the function resolves and returns its value; the transaction sees its own writes", async () => {
      const parts = await sendParts();
      const out = await h.tx.run(async (s) => {
        expect((await s.messages.acceptSend(parts)).kind).toBe("accepted");
        expect(await s.messages.findForParticipant({ workspaceId: w.workspace.id, messageId: parts.message.id, accountId: w.sender.id })).not.toBeNull();
        return 42;
      });
      expect(out).toBe(42);
      expect(await findMessage(parts.message.id)).not.toBeNull();
      expect(await findKey(parts.idempotency.key)).not.toBeNull();
      expect(await timeline(parts.message.id)).toHaveLength(1);
    });

    it("a send whose transaction fails midway leaves none of its rows, and the error propagates", async () => {
      const parts = await sendParts();
      const failure = new Error("fault after acceptSend");
      await expect(h.tx.run(async (s) => {
        expect((await s.messages.acceptSend(parts)).kind).toBe("accepted");
        await s.audit.append({ entry: makeAuditEntry(w.workspace.id, { messageId: parts.message.id, occurredAt: parts.message.acceptedAt }) });
        throw failure;
      })).rejects.toBe(failure);
      expect(await findMessage(parts.message.id)).toBeNull();
      expect(await findKey(parts.idempotency.key)).toBeNull();
      expect(await timeline(parts.message.id)).toEqual([]);
      // The key is unspent: the same send can be made again.
      expect((await h.stores.messages.acceptSend(parts)).kind).toBe("accepted");
    });

    it("rolls back every store's writes: lease writes, account changes and idempotency completions", async () => {
      const parts = await sendParts();
      expect((await h.stores.messages.acceptSend({ ...parts, idempotency: null })).kind).toBe("accepted");
      const key = makeIdempotencyRecord({ workspaceId: w.workspace.id, accountId: w.sender.id, now: await h.stores.messages.now() });
      await h.stores.idempotency.claim({ record: key });
      await expect(h.tx.run(async (s) => {
        const { claimed } = await s.messages.claimBatch({ workspaceId: w.workspace.id, recipientId: w.recipient.id, max: 1, visibilityTimeoutMs: 60_000, maxDeliveries: 10, auditIds: [fixtureId()], requestId: null, credentialId: null });
        expect(claimed).toHaveLength(1);
        await s.accounts.transition({ workspaceId: w.workspace.id, accountId: w.bystander.id, from: ["active"], to: "frozen", now: parts.message.acceptedAt });
        await s.idempotency.complete({ workspaceId: w.workspace.id, accountId: w.sender.id, key: key.key, status: 200, bodyText: "{}" });
        throw new Error("abort");
      })).rejects.toThrow("abort");
      expect(await findMessage(parts.message.id)).toMatchObject({ state: "pending", deliveryCount: 0, leaseId: null });
      expect((await h.stores.accounts.findById({ workspaceId: w.workspace.id, accountId: w.bystander.id }))?.state).toBe("active");
      expect(await findKey(key.key)).toMatchObject({ status: null });
      expect((await timeline(parts.message.id)).map((e) => e.activity)).toEqual(["message.sent"]);
    });

    it("rolls back only its own writes: a write committed outside it meanwhile survives", async () => {
      const inside = await sendParts();
      const outside = await sendParts();
      let proceed!: () => void;
      const gate = new Promise<void>((r) => (proceed = r));
      let wrote!: () => void;
      const afterWrite = new Promise<void>((r) => (wrote = r));
      const failing = h.tx.run(async (s) => {
        await s.messages.acceptSend(inside);
        wrote();
        await gate;
        throw new Error("abort");
      });
      await afterWrite;
      expect((await h.stores.messages.acceptSend(outside)).kind).toBe("accepted");
      proceed();
      await expect(failing).rejects.toThrow("abort");
      expect(await findMessage(inside.message.id)).toBeNull();
      expect(await findMessage(outside.message.id)).not.toBeNull();
      expect(await findKey(outside.idempotency.key)).not.toBeNull();
    });
  });
}
