import { fixtureId, makeAuditEntry, makeNewMessage, seedWorkspace } from "@agentq/core/testing";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createPgStores, PgTxRunner } from "./pg-stores.ts";
import { PgWakeupNotifier } from "./pg-wakeup-notifier.ts";
import { createTestSchema, type TestSchema } from "./testing/test-schema.ts";

let db: TestSchema;
beforeAll(async () => {
  db = await createTestSchema();
});
afterAll(async () => {
  await db.drop();
});

/** Resolves "woken" when `waiting` settles first, "timed out" after `ms`. */
function race(waiting: Promise<void>, ms: number): Promise<"woken" | "timed out"> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve("timed out"), ms);
    void waiting.then(() => {
      clearTimeout(timer);
      resolve("woken");
    });
  });
}

it("a send committed by another process's pool wakes the waiter over LISTEN/NOTIFY", async () => {
  // The listening side has its own pool and a fallback far beyond the test, so only a
  // notification can wake the waiter in time.
  const listenerPool = db.connect({ max: 1 });
  const notifier = new PgWakeupNotifier(listenerPool, { fallbackMs: 120_000 });
  try {
    await notifier.start();
    const senderPool = db.connect({ max: 2 });
    const w = await seedWorkspace(createPgStores(senderPool));
    const waiting = notifier.waitForMessages({ workspaceId: w.workspace.id, recipientId: w.recipient.id, timeoutMs: 120_000 });
    const otherRecipient = notifier.waitForMessages({ workspaceId: w.workspace.id, recipientId: w.bystander.id, timeoutMs: 120_000, signal: AbortSignal.timeout(5_000) });
    const now = await createPgStores(senderPool).messages.now();
    const message = makeNewMessage({ sender: w.sender, recipient: w.recipient, now });
    await new PgTxRunner(senderPool).run((s) => s.messages.acceptSend({ message, audit: makeAuditEntry(w.workspace.id, { activity: "message.sent", messageId: message.id, occurredAt: now }), idempotency: null }));
    expect(await race(waiting, 10_000)).toBe("woken");
    // The bystander's waiter was not woken by it: it ends only by its abort signal.
    expect(await race(otherRecipient, 1_000)).toBe("timed out");
  } finally {
    await notifier.close();
  }
}, 30_000);

it("a wait with no notification ends by the slow fallback timer, well before its own timeout", async () => {
  const notifier = new PgWakeupNotifier(db.sql, { fallbackMs: 100 });
  try {
    expect(await race(notifier.waitForMessages({ workspaceId: fixtureId(), recipientId: fixtureId(), timeoutMs: 60_000 }), 10_000)).toBe("woken");
  } finally {
    await notifier.close();
  }
});
