import { beforeEach, describe, expect, it } from "vitest";
import type { AiAccount, Workspace } from "../access/model.ts";
import type { IdempotencyRecord } from "../idempotency/idempotency-record.ts";
import { DAY_MS, SECOND_MS } from "../time/duration.ts";
import { seedWorkspace, type MessagingHarness, type MessagingHarnessFactory } from "./messaging-harness.ts";
import { makeIdempotencyRecord } from "./messaging-fixtures.ts";

/**
 * The contract every IdempotencyStore adapter passes (InMemoryIdempotencyStore,
 * PgIdempotencyStore): claim, complete, find, expiry and purge, scoping by workspace and
 * account, and the waiting behaviour of concurrent claims of one key inside transactions.
 * @param make returns the harness, called before each test.
 */
export function describeIdempotencyStoreContract(make: MessagingHarnessFactory): void {
  describe("IdempotencyStore contract", () => {
    let h: MessagingHarness;
    let ws: Workspace;
    let caller: AiAccount;
    let otherCaller: AiAccount;

    beforeEach(async () => {
      h = await make();
      const w = await seedWorkspace(h.stores);
      ws = w.workspace;
      caller = w.sender;
      otherCaller = w.recipient;
    });

    const record = async (overrides: Partial<IdempotencyRecord> = {}) => makeIdempotencyRecord({ workspaceId: ws.id, accountId: caller.id, now: await h.stores.messages.now() }, overrides);
    const find = (r: IdempotencyRecord) => h.stores.idempotency.find({ workspaceId: r.workspaceId, accountId: r.accountId, key: r.key });

    it("claims a new key, completes it, and then reports it as existing with the stored response", async () => {
      const r = await record();
      expect(await find(r)).toBeNull();
      expect(await h.stores.idempotency.claim({ record: r })).toEqual({ kind: "claimed" });
      expect(await find(r)).toMatchObject({ key: r.key, fingerprint: r.fingerprint, requestId: r.requestId, status: null, bodyText: null });
      await h.stores.idempotency.complete({ workspaceId: ws.id, accountId: caller.id, key: r.key, status: 200, bodyText: '{"a":1,"z":[true]}' });
      const again = await h.stores.idempotency.claim({ record: { ...r, fingerprint: "e".repeat(64), requestId: "req-other" } });
      expect(again).toMatchObject({ kind: "exists", record: { fingerprint: r.fingerprint, requestId: r.requestId, status: 200, bodyText: '{"a":1,"z":[true]}' } });
      expect(await find(r)).toMatchObject({ status: 200, bodyText: '{"a":1,"z":[true]}' });
    });

    it("scopes keys by workspace and calling account", async () => {
      const r = await record();
      expect((await h.stores.idempotency.claim({ record: r })).kind).toBe("claimed");
      expect((await h.stores.idempotency.claim({ record: { ...r, accountId: otherCaller.id } })).kind).toBe("claimed");
      const other = await seedWorkspace(h.stores);
      expect((await h.stores.idempotency.claim({ record: { ...r, workspaceId: other.workspace.id, accountId: other.sender.id } })).kind).toBe("claimed");
      expect(await h.stores.idempotency.find({ workspaceId: other.workspace.id, accountId: caller.id, key: r.key })).toBeNull();
    });

    it("forgets a key after 24 h: find is null, a new claim replaces it, purge deletes expired ones", async () => {
      const r = await record({ status: 201, bodyText: "{}" });
      const stale = await record({ status: 201, bodyText: "{}" });
      await h.stores.idempotency.claim({ record: r });
      await h.stores.idempotency.claim({ record: stale });
      await h.advance(DAY_MS + SECOND_MS);
      expect(await find(r)).toBeNull();
      const fresh = await record({ fingerprint: "d".repeat(64) });
      expect(await h.stores.idempotency.claim({ record: { ...fresh, key: r.key } })).toEqual({ kind: "claimed" });
      expect(await find(r)).toMatchObject({ fingerprint: "d".repeat(64) });
      let purged = 0;
      for (;;) {
        const n = await h.stores.idempotency.purgeExpired({ now: await h.stores.messages.now(), limit: 1000 });
        purged += n;
        if (n < 1000) break;
      }
      expect(purged).toBeGreaterThanOrEqual(1);
      expect(await find(stale)).toBeNull();
      expect(await find(r)).not.toBeNull();
    });

    it("a concurrent claim of a key claimed in an open transaction waits, then sees the committed record", async () => {
      const r = await record();
      let claimed!: () => void;
      const afterClaim = new Promise<void>((res) => (claimed = res));
      let release!: () => void;
      const gate = new Promise<void>((res) => (release = res));
      const first = h.tx.run(async (s) => {
        expect(await s.idempotency.claim({ record: r })).toEqual({ kind: "claimed" });
        claimed();
        await gate;
        await s.idempotency.complete({ workspaceId: ws.id, accountId: caller.id, key: r.key, status: 201, bodyText: '{"first":true}' });
        return "first";
      });
      await afterClaim;
      // Read committed: the uncommitted claim is invisible to a reader outside the transaction.
      expect(await find(r)).toBeNull();
      const second = h.tx.run((s) => s.idempotency.claim({ record: { ...r, requestId: "req-second" } }));
      release();
      expect(await first).toBe("first");
      expect(await second).toMatchObject({ kind: "exists", record: { requestId: r.requestId, status: 201, bodyText: '{"first":true}' } });
    });

    it("a concurrent claim of a key whose transaction rolls back claims it", async () => {
      const r = await record();
      let claimed!: () => void;
      const afterClaim = new Promise<void>((res) => (claimed = res));
      let release!: () => void;
      const gate = new Promise<void>((res) => (release = res));
      const first = h.tx.run(async (s) => {
        await s.idempotency.claim({ record: r });
        claimed();
        await gate;
        throw new Error("first request failed");
      });
      await afterClaim;
      const second = h.tx.run((s) => s.idempotency.claim({ record: { ...r, requestId: "req-second" } }));
      release();
      await expect(first).rejects.toThrow("first request failed");
      expect(await second).toEqual({ kind: "claimed" });
      expect(await find(r)).toMatchObject({ requestId: "req-second" });
    });

    it("of many concurrent transactional claims of one key, exactly one claims", async () => {
      const r = await record();
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => h.tx.run(async (s) => {
        const c = await s.idempotency.claim({ record: { ...r, requestId: `req-${i}` } });
        if (c.kind === "claimed") await s.idempotency.complete({ workspaceId: ws.id, accountId: caller.id, key: r.key, status: 200, bodyText: `{"winner":${i}}` });
        return c;
      })));
      const winners = results.filter((c) => c.kind === "claimed");
      expect(winners).toHaveLength(1);
      const stored = await find(r);
      for (const c of results) if (c.kind === "exists") expect(c.record.bodyText).toBe(stored?.bodyText);
    });
  });
}
