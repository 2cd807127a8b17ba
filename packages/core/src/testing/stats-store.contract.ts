import { describe, expect, it } from "vitest";
import type { AiAccount } from "../access/model.ts";
import { MINUTE_MS } from "../time/duration.ts";
import { makeAuditEntry, makeNewMessage } from "./messaging-fixtures.ts";
import { seedWorkspace, type MessagingHarnessFactory } from "./messaging-harness.ts";

/** What the StatsStore suite receives: the messaging harness (its `stores.stats` under test). */
export type StatsStoreHarness = MessagingHarnessFactory;

/**
 * The StatsStore contract (DESIGN §2c Telemetry, the minute series): the last whole minutes'
 * sends, acks and dead letters counted from the audit rows, the depth and lag read now, one
 * workspace never seeing another's, a second pass changing nothing, and the purge.
 */
export function describeStatsStoreContract(make: StatsStoreHarness): void {
  describe("StatsStore contract", () => {
    it("records the last whole minutes per workspace, idempotently, and purges them", async () => {
      const h = await make();
      const a = await seedWorkspace(h.stores);
      const b = await seedWorkspace(h.stores);
      const send = async (from: AiAccount, to: AiAccount) => {
        const message = makeNewMessage({ sender: from, recipient: to, now: await h.stores.messages.now() });
        const r = await h.stores.messages.acceptSend({ message, audit: makeAuditEntry(message.workspaceId, { activity: "message.sent", messageId: message.id, subjectType: "message", subjectId: message.id, occurredAt: message.acceptedAt, details: { recipient_id: to.id } }), idempotency: null });
        if (r.kind !== "accepted") throw new Error(`send: ${r.kind}`);
      };
      for (let i = 0; i < 3; i++) await send(a.sender, a.recipient);
      // The sends fall in a whole minute now past.
      await h.advance(61_000);
      expect(await h.stores.stats.recordMinutes()).toBeGreaterThan(0);

      const now = await h.stores.messages.now();
      const hourAgo = new Date(now.getTime() - 60 * MINUTE_MS);
      const minutes = await h.stores.stats.listMinutes({ workspaceId: a.workspace.id, from: hourAgo });
      expect(minutes.reduce((n, m) => n + m.sent, 0)).toBe(3);
      expect(minutes.every((m) => m.minute.getTime() % MINUTE_MS === 0)).toBe(true);
      const last = minutes.at(-1);
      expect(last?.minute.getTime()).toBe(Math.floor(now.getTime() / MINUTE_MS) * MINUTE_MS - MINUTE_MS);
      expect(last?.pending).toBe(3);
      expect(last?.oldestPendingAgeSeconds).toBeGreaterThanOrEqual(60);
      // Another workspace's minutes hold nothing of A's.
      expect(await h.stores.stats.listMinutes({ workspaceId: b.workspace.id, from: hourAgo })).toEqual([]);
      // Per recipient: the sends and the depth are the recipient's; the sender received nothing;
      // A's recipient read under another workspace is empty.
      const received = await h.stores.stats.listMinutes({ workspaceId: a.workspace.id, aiAccountId: a.recipient.id, from: hourAgo });
      expect(received.reduce((n, m) => n + m.sent, 0)).toBe(3);
      expect(received.at(-1)?.pending).toBe(3);
      expect(await h.stores.stats.listMinutes({ workspaceId: a.workspace.id, aiAccountId: a.sender.id, from: hourAgo })).toEqual([]);
      expect(await h.stores.stats.listMinutes({ workspaceId: b.workspace.id, aiAccountId: a.recipient.id, from: hourAgo })).toEqual([]);

      // A second pass (another process, say) recounts the same minutes: nothing doubles.
      await h.stores.stats.recordMinutes();
      const again = await h.stores.stats.listMinutes({ workspaceId: a.workspace.id, from: hourAgo });
      expect(again.reduce((n, m) => n + m.sent, 0)).toBe(3);
      expect((await h.stores.stats.listMinutes({ workspaceId: a.workspace.id, aiAccountId: a.recipient.id, from: hourAgo })).reduce((n, m) => n + m.sent, 0)).toBe(3);

      expect(await h.stores.stats.purgeBefore({ before: new Date(now.getTime() + MINUTE_MS) })).toBeGreaterThanOrEqual(again.length);
      expect(await h.stores.stats.listMinutes({ workspaceId: a.workspace.id, from: hourAgo })).toEqual([]);
      expect(await h.stores.stats.listMinutes({ workspaceId: a.workspace.id, aiAccountId: a.recipient.id, from: hourAgo })).toEqual([]);
    });
  });
}
