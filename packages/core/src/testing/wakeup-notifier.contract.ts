import { describe, expect, it } from "vitest";
import { fixtureId } from "./access-fixtures.ts";
import type { MessagingHarnessFactory } from "./messaging-harness.ts";

/**
 * The contract every WakeupNotifier passes (InMemoryWakeupNotifier, PgWakeupNotifier): a
 * notification wakes every waiter of that recipient; a wait ends by itself after its timeout or
 * when its signal aborts, and never rejects. Spurious wake-ups are allowed, so the suite never
 * asserts that a waiter stays asleep. The harness's notifier must use real timers here (the
 * timeouts are short and real).
 * @param make returns the harness, called before each test.
 */
export function describeWakeupNotifierContract(make: MessagingHarnessFactory): void {
  describe("WakeupNotifier contract", () => {
    /** Notifies until `waiting` resolves (a LISTEN may still be registering); the test times out if it never does. */
    async function notifyUntil(notify: () => Promise<void>, waiting: Promise<void>): Promise<void> {
      let done = false;
      void waiting.then(() => (done = true));
      while (!done) {
        await notify();
        await new Promise((r) => setTimeout(r, 20));
      }
    }

    it("wakes every waiter of the recipient", async () => {
      const { notifier } = await make();
      const target = { workspaceId: fixtureId(), recipientId: fixtureId() };
      const waiters = [1, 2, 3].map(() => notifier.waitForMessages({ ...target, timeoutMs: 60_000 }));
      const all = Promise.all(waiters).then(() => undefined);
      await notifyUntil(() => notifier.notifyMessages(target), all);
      await all;
    }, 15_000);

    it("ends a wait after its timeout without a notification, and never rejects", async () => {
      const { notifier } = await make();
      const started = Date.now();
      await expect(notifier.waitForMessages({ workspaceId: fixtureId(), recipientId: fixtureId(), timeoutMs: 50 })).resolves.toBeUndefined();
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    it("ends a wait when its signal aborts, and at once for a signal already aborted", async () => {
      const { notifier } = await make();
      const ac = new AbortController();
      const waiting = notifier.waitForMessages({ workspaceId: fixtureId(), recipientId: fixtureId(), timeoutMs: 60_000, signal: ac.signal });
      ac.abort();
      await expect(waiting).resolves.toBeUndefined();
      await expect(notifier.waitForMessages({ workspaceId: fixtureId(), recipientId: fixtureId(), timeoutMs: 60_000, signal: ac.signal })).resolves.toBeUndefined();
    }, 15_000);

    it("notifying a recipient nobody waits for is harmless", async () => {
      const { notifier } = await make();
      await expect(notifier.notifyMessages({ workspaceId: fixtureId(), recipientId: fixtureId() })).resolves.toBeUndefined();
    });

    it("a watch hears every notification of its recipient until it is stopped, and none after", async () => {
      const { notifier } = await make();
      const target = { workspaceId: fixtureId(), recipientId: fixtureId() };
      let heard = 0;
      const stop = notifier.watchMessages({ ...target, onWake: () => (heard += 1) });
      const heardOnce = new Promise<void>((resolve) => {
        const check = setInterval(() => {
          if (heard > 0) resolve(clearInterval(check));
        }, 5);
      });
      await notifyUntil(() => notifier.notifyMessages(target), heardOnce);
      const before = heard;
      await notifier.notifyMessages(target);
      await expect.poll(() => heard, { timeout: 10_000 }).toBeGreaterThan(before);
      stop();
      const stopped = heard;
      // A fresh watch proves the next notification was delivered; the stopped one heard nothing of it.
      let fresh = 0;
      const stopFresh = notifier.watchMessages({ ...target, onWake: () => (fresh += 1) });
      await notifier.notifyMessages(target);
      await expect.poll(() => fresh, { timeout: 10_000 }).toBeGreaterThan(0);
      stopFresh();
      expect(heard).toBe(stopped);
    }, 15_000);
  });
}
