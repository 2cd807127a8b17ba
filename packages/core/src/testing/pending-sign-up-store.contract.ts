import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { beforeEach, describe, expect, it } from "vitest";
import type { PendingSignUp } from "../people/pending-sign-up.ts";
import type { PendingSignUpStore } from "../ports.ts";
import { fixtureId } from "./access-fixtures.ts";

const T0 = new Date("2026-03-01T10:00:00.000Z");
const at = (ms: number) => new Date(T0.getTime() + ms);
const DAY = 24 * 3_600_000;

/** A pending sign-up of `email` with a unique token hash. */
export function makePendingSignUp(email: string, overrides: Partial<PendingSignUp> = {}): PendingSignUp {
  const id = overrides.id ?? fixtureId();
  return { id, tokenHash: bytesToHex(sha256(utf8ToBytes(`sign-up-${id}`))), email, passwordHash: "$argon2id$test", workspaceName: "W", displayName: null, createdAt: T0, expiresAt: at(DAY), ...overrides };
}

/**
 * The contract of PendingSignUpStore (in memory and PostgreSQL): a sign-up is taken once (also
 * under concurrent takes), never after it expired; emails are not unique; counting by email
 * and time; the sweep of expired ones.
 * @param make the store under test, bound to the pool, called before each test.
 */
export function describePendingSignUpStoreContract(make: () => Promise<{ pendingSignUps: PendingSignUpStore }>): void {
  describe("PendingSignUpStore contract", () => {
    let s: PendingSignUpStore;
    beforeEach(async () => {
      s = (await make()).pendingSignUps;
    });

    it("takes a pending sign-up by its token hash once, with every field, and never an expired or unknown one", async () => {
      const signUp = makePendingSignUp(`a-${fixtureId()}@contract.test`, { displayName: "Ada", workspaceName: "Ada's" });
      await s.insert({ signUp });
      expect(await s.take({ tokenHash: signUp.tokenHash, now: at(1000) })).toEqual(signUp);
      expect(await s.take({ tokenHash: signUp.tokenHash, now: at(2000) })).toBeNull();
      const expired = makePendingSignUp(`b-${fixtureId()}@contract.test`, { expiresAt: at(5000) });
      await s.insert({ signUp: expired });
      expect(await s.take({ tokenHash: expired.tokenHash, now: at(5000) })).toBeNull();
      expect(await s.take({ tokenHash: "0".repeat(64), now: at(0) })).toBeNull();
    });

    it("lets exactly one of concurrent takes of a sign-up win", async () => {
      const signUp = makePendingSignUp(`c-${fixtureId()}@contract.test`);
      await s.insert({ signUp });
      const results = await Promise.all(Array.from({ length: 8 }, () => s.take({ tokenHash: signUp.tokenHash, now: at(1000) })));
      expect(results.filter((r) => r !== null)).toHaveLength(1);
    });

    it("keeps several pending sign-ups of one email and counts those created since a time", async () => {
      const email = `d-${fixtureId()}@contract.test`;
      const first = makePendingSignUp(email, { createdAt: at(0) });
      const second = makePendingSignUp(email, { createdAt: at(60_000) });
      await s.insert({ signUp: first });
      await s.insert({ signUp: second });
      await s.insert({ signUp: makePendingSignUp(`other-${fixtureId()}@contract.test`, { createdAt: at(60_000) }) });
      expect(await s.countSince({ email, since: at(0) })).toBe(2);
      expect(await s.countSince({ email, since: at(1) })).toBe(1);
      expect(await s.take({ tokenHash: second.tokenHash, now: at(120_000) })).toEqual(second);
      expect(await s.take({ tokenHash: first.tokenHash, now: at(120_000) })).toEqual(first);
      expect(await s.countSince({ email, since: at(0) })).toBe(0);
    });

    it("purges the sign-ups that expired before a time, and only those", async () => {
      const gone = makePendingSignUp(`e-${fixtureId()}@contract.test`, { expiresAt: at(-1) });
      const kept = makePendingSignUp(`f-${fixtureId()}@contract.test`, { expiresAt: at(DAY) });
      await s.insert({ signUp: gone });
      await s.insert({ signUp: kept });
      expect(await s.purgeExpiredBefore({ before: at(0) })).toBeGreaterThanOrEqual(1);
      expect(await s.take({ tokenHash: gone.tokenHash, now: at(-10) })).toBeNull();
      expect(await s.take({ tokenHash: kept.tokenHash, now: at(0) })).toEqual(kept);
    });
  });
}
