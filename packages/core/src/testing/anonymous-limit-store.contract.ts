import { beforeEach, describe, expect, it } from "vitest";
import type { AnonymousLimitStore } from "../ports.ts";
import { fixtureId } from "./access-fixtures.ts";

const T0 = new Date("2026-03-01T10:00:00.000Z");
const at = (ms: number) => new Date(T0.getTime() + ms);
const WINDOW_MS = 60_000;

/**
 * The contract every AnonymousLimitStore adapter passes (in memory and PostgreSQL): a key's
 * window opens at its first hit and keeps its end while it lasts; buckets and keys count apart;
 * a hit after the end opens a new window; N concurrent hits count N; ended windows are purged.
 * @param make the store under test (bound to the pool in PostgreSQL), called before each test.
 */
export function describeAnonymousLimitStoreContract(make: () => Promise<AnonymousLimitStore>): void {
  describe("AnonymousLimitStore contract", () => {
    let store: AnonymousLimitStore;
    beforeEach(async () => {
      store = await make();
    });
    const hit = (bucket: string, key: string, atMs: number, cost = 1) => store.hit({ bucket, key, now: at(atMs), windowMs: WINDOW_MS, cost });

    it("opens a key's window at its first hit and counts in it; the end stays where the first hit put it", async () => {
      const key = fixtureId();
      expect(await hit("sign_up", key, 1_000)).toEqual({ count: 1, windowEndsAt: at(1_000 + WINDOW_MS) });
      expect(await hit("sign_up", key, 30_000)).toEqual({ count: 2, windowEndsAt: at(1_000 + WINDOW_MS) });
      expect(await hit("sign_up", key, 1_000 + WINDOW_MS - 1, 3)).toEqual({ count: 5, windowEndsAt: at(1_000 + WINDOW_MS) });
    });

    it("counts each bucket and each key apart", async () => {
      const [k1, k2] = [fixtureId(), fixtureId()];
      await hit("password_reset", k1, 0);
      await hit("password_reset", k1, 0);
      expect((await hit("password_reset", k2, 0)).count).toBe(1);
      expect((await hit("oauth_register", k1, 0)).count).toBe(1);
      expect((await hit("password_reset", k1, 0)).count).toBe(3);
    });

    it("opens a new window with the first hit at or after the end", async () => {
      const key = fixtureId();
      await hit("notice_intake", key, 0);
      await hit("notice_intake", key, 10);
      expect(await hit("notice_intake", key, WINDOW_MS)).toEqual({ count: 1, windowEndsAt: at(2 * WINDOW_MS) });
      expect(await hit("notice_intake", key, WINDOW_MS + 5)).toEqual({ count: 2, windowEndsAt: at(2 * WINDOW_MS) });
    });

    it("loses no hit among 60 concurrent ones, and each sees a distinct count", async () => {
      const key = fixtureId();
      const counts = await Promise.all(Array.from({ length: 60 }, () => hit("sign_up", key, 5)));
      expect(counts.map((c) => c.count).sort((a, b) => a - b)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
      expect((await hit("sign_up", key, 6)).count).toBe(61);
    });

    it("purges counters whose window ended before a time, and only those", async () => {
      const [old, live] = [fixtureId(), fixtureId()];
      await hit("verify_email", old, 0);
      await hit("verify_email", live, 2 * WINDOW_MS);
      expect(await store.purgeBefore({ before: at(2 * WINDOW_MS) })).toBeGreaterThanOrEqual(1);
      expect((await hit("verify_email", live, 2 * WINDOW_MS + 1)).count).toBe(2);
      // The old key's window had ended anyway: a new hit opens a new one.
      expect((await hit("verify_email", old, 2 * WINDOW_MS + 1)).count).toBe(1);
    });
  });
}
