import { beforeEach, describe, expect, it } from "vitest";
import type { SignInThrottleStore } from "../ports.ts";
import { fixtureId } from "./access-fixtures.ts";

const T0 = new Date("2026-03-01T10:00:00.000Z");
const at = (ms: number) => new Date(T0.getTime() + ms);
const WINDOW_MS = 15 * 60_000;

/**
 * The contract every SignInThrottleStore adapter passes (in memory and PostgreSQL): an attempt
 * is admitted while both windows hold fewer than their limits and then holds its place; a
 * refused one holds none; a released one gives its place back; attempts that left the window do
 * not count; and of N concurrent attempts with room for k, exactly k are admitted (the email's
 * window and the address's alike).
 * @param make the store under test bound to the pool (each call its own transaction), called before each test.
 */
export function describeSignInThrottleStoreContract(make: () => Promise<SignInThrottleStore>): void {
  describe("SignInThrottleStore contract", () => {
    let store: SignInThrottleStore;
    beforeEach(async () => {
      store = await make();
    });
    const admit = (emailKey: string, addressKey: string, p: { atMs?: number; emailLimit?: number; addressLimit?: number; id?: string } = {}) =>
      store.admitAttempt({ id: p.id ?? fixtureId(), emailKey, addressKey, at: at(p.atMs ?? 0), since: at((p.atMs ?? 0) - WINDOW_MS), emailLimit: p.emailLimit ?? 3, addressLimit: p.addressLimit ?? 5 });

    it("admits attempts until the email's window is full, then refuses without taking a place; counts and the oldest are those seen before the attempt", async () => {
      const [email, address] = [fixtureId(), fixtureId()];
      expect(await admit(email, address, { atMs: 1_000 })).toEqual({ admitted: true, email: { count: 0, oldest: null }, address: { count: 0, oldest: null } });
      expect(await admit(email, address, { atMs: 2_000 })).toEqual({ admitted: true, email: { count: 1, oldest: at(1_000) }, address: { count: 1, oldest: at(1_000) } });
      expect((await admit(email, address, { atMs: 3_000 })).admitted).toBe(true);
      const refused = await admit(email, address, { atMs: 4_000 });
      expect(refused).toEqual({ admitted: false, email: { count: 3, oldest: at(1_000) }, address: { count: 3, oldest: at(1_000) } });
      expect((await admit(email, address, { atMs: 5_000 })).email.count).toBe(3);
      // Another email from the same address still has room there (5 per address).
      expect(await admit(fixtureId(), address, { atMs: 6_000 })).toMatchObject({ admitted: true, address: { count: 3 } });
    });

    it("refuses when the address's window is full, whatever the email", async () => {
      const address = fixtureId();
      for (let i = 0; i < 5; i++) expect((await admit(fixtureId(), address, { atMs: i })).admitted).toBe(true);
      expect(await admit(fixtureId(), address, { atMs: 10 })).toMatchObject({ admitted: false, email: { count: 0 }, address: { count: 5, oldest: at(0) } });
      expect((await admit(fixtureId(), fixtureId(), { atMs: 10 })).admitted).toBe(true);
    });

    it("gives a released attempt's place back; releasing twice or an unknown id changes nothing", async () => {
      const [email, address] = [fixtureId(), fixtureId()];
      const ids = [fixtureId(), fixtureId(), fixtureId()];
      for (const id of ids) expect((await admit(email, address, { id })).admitted).toBe(true);
      expect((await admit(email, address)).admitted).toBe(false);
      await store.releaseAttempt({ id: ids[1] as string });
      await store.releaseAttempt({ id: ids[1] as string });
      await store.releaseAttempt({ id: fixtureId() });
      expect(await admit(email, address, { atMs: 1 })).toMatchObject({ admitted: true, email: { count: 2 } });
      expect((await admit(email, address, { atMs: 2 })).admitted).toBe(false);
    });

    it("counts only attempts inside the window, and purges those before a time", async () => {
      const [email, address] = [fixtureId(), fixtureId()];
      for (let i = 0; i < 3; i++) await admit(email, address, { atMs: i });
      expect((await admit(email, address, { atMs: WINDOW_MS - 1 })).admitted).toBe(false);
      expect(await admit(email, address, { atMs: WINDOW_MS + 1 })).toMatchObject({ admitted: true, email: { count: 2, oldest: at(1) } });
      expect(await store.purgeBefore({ before: at(2) })).toBeGreaterThanOrEqual(2);
      expect(await admit(email, address, { atMs: 10, emailLimit: 10 })).toMatchObject({ email: { count: 2, oldest: at(2) } });
    });

    it("admits exactly the room left among concurrent attempts: 60 at once for one email, 60 at once for one address over many emails", async () => {
      const [email, address] = [fixtureId(), fixtureId()];
      const sameEmail = await Promise.all(Array.from({ length: 60 }, (_, i) => admit(email, address, { atMs: i, emailLimit: 10, addressLimit: 30 })));
      expect(sameEmail.filter((r) => r.admitted)).toHaveLength(10);
      const manyEmails = await Promise.all(Array.from({ length: 60 }, (_, i) => admit(fixtureId(), address, { atMs: 100 + i, emailLimit: 10, addressLimit: 30 })));
      expect(manyEmails.filter((r) => r.admitted)).toHaveLength(20);
      expect(await admit(fixtureId(), address, { atMs: 1_000, addressLimit: 30 })).toMatchObject({ admitted: false, address: { count: 30 } });
    });
  });
}
