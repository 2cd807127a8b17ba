import { beforeEach, describe, expect, it } from "vitest";
import type { AiAccount, Workspace } from "../access/model.ts";
import { makeAccount, makePerson, makeWorkspace } from "./access-fixtures.ts";
import type { AccessStoresFactory, AccessStoresUnderTest } from "./access-stores-factory.ts";

const LATER = new Date("2026-02-01T00:00:00.000Z");

/**
 * The contract every AccountStore adapter passes (InMemoryAccountStore, PgAccountStore).
 * @param make returns the stores under test, called before each test.
 */
export function describeAccountStoreContract(make: AccessStoresFactory): void {
  describe("AccountStore contract", () => {
    let s: AccessStoresUnderTest;
    let ws: Workspace;
    let other: Workspace;

    async function seedWorkspace(): Promise<Workspace> {
      const w = makeWorkspace();
      await s.workspaces.create({ workspace: w, owner: makePerson(w.id) });
      return w;
    }

    async function seedAccount(workspaceId: string, overrides: Partial<AiAccount> = {}): Promise<AiAccount> {
      const a = makeAccount(workspaceId, overrides);
      expect(await s.accounts.create({ account: a })).toEqual({ kind: "created" });
      return a;
    }

    beforeEach(async () => {
      s = await make();
      ws = await seedWorkspace();
      other = await seedWorkspace();
    });

    it("creates an account and reads it back, only within its workspace", async () => {
      const a = await seedAccount(ws.id);
      expect(await s.accounts.findById({ workspaceId: ws.id, accountId: a.id })).toEqual(a);
      expect(await s.accounts.findById({ workspaceId: other.id, accountId: a.id })).toBeNull();
      expect(await s.accounts.findById({ workspaceId: ws.id, accountId: makeAccount(ws.id).id })).toBeNull();
    });

    it("refuses a friendly name a non-revoked account of the workspace holds", async () => {
      const a = await seedAccount(ws.id);
      expect(await s.accounts.create({ account: makeAccount(ws.id, { friendlyName: a.friendlyName }) })).toEqual({ kind: "name_taken" });
      await s.accounts.transition({ workspaceId: ws.id, accountId: a.id, from: ["active"], to: "frozen", now: LATER });
      expect(await s.accounts.create({ account: makeAccount(ws.id, { friendlyName: a.friendlyName }) })).toEqual({ kind: "name_taken" });
    });

    it("frees the name of a revoked account, and names are per workspace", async () => {
      const a = await seedAccount(ws.id);
      await seedAccount(other.id, { friendlyName: a.friendlyName });
      await s.accounts.transition({ workspaceId: ws.id, accountId: a.id, from: ["active", "frozen"], to: "revoked", now: LATER });
      const b = await seedAccount(ws.id, { friendlyName: a.friendlyName });
      expect(await s.accounts.findAddressable({ workspaceId: ws.id, friendlyName: a.friendlyName })).toEqual(b);
    });

    it("of concurrent creates with one name, exactly one wins", async () => {
      const name = makeAccount(ws.id).friendlyName;
      const results = await Promise.all(Array.from({ length: 6 }, () => s.accounts.create({ account: makeAccount(ws.id, { friendlyName: name }) })));
      expect(results.filter((r) => r.kind === "created")).toHaveLength(1);
    });

    it("finds addressable accounts by name: active and frozen, never revoked or foreign", async () => {
      const a = await seedAccount(ws.id);
      expect(await s.accounts.findAddressable({ workspaceId: ws.id, friendlyName: a.friendlyName })).toEqual(a);
      expect(await s.accounts.findAddressable({ workspaceId: other.id, friendlyName: a.friendlyName })).toBeNull();
      await s.accounts.transition({ workspaceId: ws.id, accountId: a.id, from: ["active"], to: "frozen", now: LATER });
      expect((await s.accounts.findAddressable({ workspaceId: ws.id, friendlyName: a.friendlyName }))?.state).toBe("frozen");
      await s.accounts.transition({ workspaceId: ws.id, accountId: a.id, from: ["frozen"], to: "revoked", now: LATER });
      expect(await s.accounts.findAddressable({ workspaceId: ws.id, friendlyName: a.friendlyName })).toBeNull();
    });

    it("lists in id order, filters by state, pages with after, returns up to limit + 1", async () => {
      const accounts = [await seedAccount(ws.id), await seedAccount(ws.id), await seedAccount(ws.id), await seedAccount(ws.id)];
      await seedAccount(other.id);
      const [a0, a1, a2, a3] = accounts as [AiAccount, AiAccount, AiAccount, AiAccount];
      await s.accounts.transition({ workspaceId: ws.id, accountId: a1.id, from: ["active"], to: "revoked", now: LATER });

      const all = await s.accounts.list({ workspaceId: ws.id, states: null, after: null, limit: 10 });
      expect(all.map((a) => a.id)).toEqual([a0.id, a1.id, a2.id, a3.id]);
      const page = await s.accounts.list({ workspaceId: ws.id, states: null, after: null, limit: 2 });
      expect(page.map((a) => a.id)).toEqual([a0.id, a1.id, a2.id]);
      const next = await s.accounts.list({ workspaceId: ws.id, states: null, after: a1.id, limit: 2 });
      expect(next.map((a) => a.id)).toEqual([a2.id, a3.id]);
      const live = await s.accounts.list({ workspaceId: ws.id, states: ["active", "frozen"], after: null, limit: 10 });
      expect(live.map((a) => a.id)).toEqual([a0.id, a2.id, a3.id]);
      expect(await s.accounts.list({ workspaceId: ws.id, states: [], after: null, limit: 10 })).toEqual([]);
    });

    it("renames an active or frozen account and sets updatedAt", async () => {
      const a = await seedAccount(ws.id);
      const renamed = await s.accounts.rename({ workspaceId: ws.id, accountId: a.id, friendlyName: "renamed-1", now: LATER });
      expect(renamed).toEqual({ kind: "renamed", account: { ...a, friendlyName: "renamed-1", updatedAt: LATER } });
      expect(await s.accounts.findAddressable({ workspaceId: ws.id, friendlyName: a.friendlyName })).toBeNull();
      await s.accounts.transition({ workspaceId: ws.id, accountId: a.id, from: ["active"], to: "frozen", now: LATER });
      expect((await s.accounts.rename({ workspaceId: ws.id, accountId: a.id, friendlyName: "renamed-2", now: LATER })).kind).toBe("renamed");
      expect((await s.accounts.rename({ workspaceId: ws.id, accountId: a.id, friendlyName: "renamed-2", now: LATER })).kind).toBe("renamed");
    });

    it("refuses a rename to a taken name, and of missing, revoked or foreign accounts", async () => {
      const a = await seedAccount(ws.id);
      const b = await seedAccount(ws.id);
      expect(await s.accounts.rename({ workspaceId: ws.id, accountId: a.id, friendlyName: b.friendlyName, now: LATER })).toEqual({ kind: "name_taken" });
      expect(await s.accounts.rename({ workspaceId: other.id, accountId: a.id, friendlyName: "x-1", now: LATER })).toEqual({ kind: "not_found" });
      expect(await s.accounts.rename({ workspaceId: ws.id, accountId: makeAccount(ws.id).id, friendlyName: "x-2", now: LATER })).toEqual({ kind: "not_found" });
      await s.accounts.transition({ workspaceId: ws.id, accountId: b.id, from: ["active"], to: "revoked", now: LATER });
      expect(await s.accounts.rename({ workspaceId: ws.id, accountId: b.id, friendlyName: "x-3", now: LATER })).toEqual({ kind: "not_found" });
      expect((await s.accounts.findById({ workspaceId: ws.id, accountId: a.id }))?.friendlyName).toBe(a.friendlyName);
    });

    it("transitions only from the allowed states", async () => {
      const a = await seedAccount(ws.id);
      const moved = await s.accounts.transition({ workspaceId: ws.id, accountId: a.id, from: ["active"], to: "frozen", now: LATER });
      expect(moved).toEqual({ kind: "moved", account: { ...a, state: "frozen", updatedAt: LATER } });
      const wrong = await s.accounts.transition({ workspaceId: ws.id, accountId: a.id, from: ["active"], to: "frozen", now: LATER });
      expect(wrong).toEqual({ kind: "wrong_state", account: { ...a, state: "frozen", updatedAt: LATER } });
      expect(await s.accounts.transition({ workspaceId: other.id, accountId: a.id, from: ["frozen"], to: "active", now: LATER })).toEqual({ kind: "not_found" });
      expect((await s.accounts.findById({ workspaceId: ws.id, accountId: a.id }))?.state).toBe("frozen");
    });

    it("of concurrent transitions from one state, exactly one moves", async () => {
      const a = await seedAccount(ws.id);
      const results = await Promise.all(Array.from({ length: 6 }, () => s.accounts.transition({ workspaceId: ws.id, accountId: a.id, from: ["active"], to: "frozen", now: LATER })));
      expect(results.filter((r) => r.kind === "moved")).toHaveLength(1);
      expect(results.filter((r) => r.kind === "wrong_state")).toHaveLength(5);
    });

    it("loads the principal context: the account and its workspace as they stand now", async () => {
      const a = await seedAccount(ws.id);
      expect(await s.accounts.loadPrincipalContext({ accountId: a.id })).toEqual({ account: a, workspace: ws });
      await s.workspaces.setState({ workspaceId: ws.id, state: "frozen" });
      await s.accounts.transition({ workspaceId: ws.id, accountId: a.id, from: ["active"], to: "revoked", now: LATER });
      const ctx = await s.accounts.loadPrincipalContext({ accountId: a.id });
      expect(ctx?.workspace.state).toBe("frozen");
      expect(ctx?.account.state).toBe("revoked");
      expect(await s.accounts.loadPrincipalContext({ accountId: makeAccount(ws.id).id })).toBeNull();
    });

    it("loads concurrent principal contexts each as its own (across workspaces, repeated and missing ids)", async () => {
      const a = await seedAccount(ws.id);
      const b = await seedAccount(other.id);
      const missing = makeAccount(ws.id).id;
      const ids = [a.id, b.id, missing, a.id, b.id, a.id];
      const loaded = await Promise.all(ids.map((accountId) => s.accounts.loadPrincipalContext({ accountId })));
      expect(loaded).toEqual([{ account: a, workspace: ws }, { account: b, workspace: other }, null, { account: a, workspace: ws }, { account: b, workspace: other }, { account: a, workspace: ws }]);
      // A change between two batches is seen by the next one.
      await s.workspaces.setState({ workspaceId: other.id, state: "frozen" });
      const [again] = await Promise.all([s.accounts.loadPrincipalContext({ accountId: b.id }), s.accounts.loadPrincipalContext({ accountId: a.id })]);
      expect(again?.workspace.state).toBe("frozen");
    });
  });
}
