import { beforeEach, describe, expect, it } from "vitest";
import type { AiAccount, Credential, Workspace } from "../access/model.ts";
import { makeAccount, makeCredential, makePerson, makeWorkspace } from "./access-fixtures.ts";
import type { AccessStoresFactory, AccessStoresUnderTest } from "./access-stores-factory.ts";

const NOW = new Date("2026-03-01T00:00:00.000Z");

/**
 * The contract every CredentialStore adapter passes (InMemoryCredentialStore, PgCredentialStore).
 * @param make returns the stores under test, called before each test.
 */
export function describeCredentialStoreContract(make: AccessStoresFactory): void {
  describe("CredentialStore contract", () => {
    let s: AccessStoresUnderTest;
    let ws: Workspace;
    let other: Workspace;
    let account: AiAccount;
    let otherAccount: AiAccount;

    async function seedWorkspace(): Promise<Workspace> {
      const w = makeWorkspace();
      await s.workspaces.create({ workspace: w, owner: makePerson(w.id) });
      return w;
    }

    async function seedAccount(workspaceId: string): Promise<AiAccount> {
      const a = makeAccount(workspaceId);
      await s.accounts.create({ account: a });
      return a;
    }

    async function seedCredential(owner: AiAccount, overrides: Partial<Credential> = {}): Promise<Credential> {
      const c = makeCredential(owner, overrides);
      await s.credentials.insert({ credential: c });
      return c;
    }

    beforeEach(async () => {
      s = await make();
      ws = await seedWorkspace();
      other = await seedWorkspace();
      account = await seedAccount(ws.id);
      otherAccount = await seedAccount(other.id);
    });

    it("inserts a credential and reads every field back, only within its workspace", async () => {
      const c = await seedCredential(account, { tier: "administrative", scopes: ["manage_credentials", "manage_dlq"], projectId: null, expiresAt: null });
      const p = await seedCredential(account, { projectId: "01J00000000000000000000000", rotatedFromId: c.id });
      expect(await s.credentials.findById({ workspaceId: ws.id, credentialId: c.id })).toEqual(c);
      expect(await s.credentials.findById({ workspaceId: ws.id, credentialId: p.id })).toEqual(p);
      expect(await s.credentials.findById({ workspaceId: other.id, credentialId: c.id })).toBeNull();
    });

    it("records a use on the credential and its account once their last record is stale, never backwards, in their workspace only", async () => {
      const c = await seedCredential(account);
      const bystander = await seedCredential(account);
      const at = (ms: number) => new Date(NOW.getTime() + ms);
      const use = (now: Date, workspaceId = ws.id) => s.credentials.recordUse({ workspaceId, credentialId: c.id, aiAccountId: account.id, now, staleBefore: new Date(now.getTime() - 60_000) });
      const lastUsed = async () => (await s.credentials.findById({ workspaceId: ws.id, credentialId: c.id }))?.lastUsedAt;
      const lastActive = async () => (await s.accounts.findById({ workspaceId: ws.id, accountId: account.id }))?.lastActiveAt;
      // Another workspace's id names nothing there.
      await use(at(0), other.id);
      expect(await lastUsed()).toBeNull();
      expect(await lastActive()).toBeNull();
      await use(at(0));
      expect(await lastUsed()).toEqual(at(0));
      expect(await lastActive()).toEqual(at(0));
      // Within the minute nothing is written; later it moves; an older report never moves it back.
      await use(at(30_000));
      expect(await lastUsed()).toEqual(at(0));
      await use(at(61_000));
      expect(await lastUsed()).toEqual(at(61_000));
      expect(await lastActive()).toEqual(at(61_000));
      await use(at(5_000));
      expect(await lastUsed()).toEqual(at(61_000));
      expect(await s.credentials.findById({ workspaceId: ws.id, credentialId: bystander.id })).toEqual(bystander);
      expect((await s.accounts.findById({ workspaceId: other.id, accountId: otherAccount.id }))?.lastActiveAt).toBeNull();
    });

    it("finds by token hash in any workspace, and any state", async () => {
      const c = await seedCredential(otherAccount);
      expect(await s.credentials.findByTokenHash({ tokenHash: c.tokenHash })).toEqual(c);
      await s.credentials.revoke({ workspaceId: other.id, credentialId: c.id, now: NOW });
      expect((await s.credentials.findByTokenHash({ tokenHash: c.tokenHash }))?.state).toBe("revoked");
      expect(await s.credentials.findByTokenHash({ tokenHash: makeCredential(account).tokenHash })).toBeNull();
    });

    it("lists newest first, filters by account, pages with after, returns up to limit + 1", async () => {
      const second = await seedAccount(ws.id);
      const c0 = await seedCredential(account);
      const c1 = await seedCredential(second);
      const c2 = await seedCredential(account);
      const c3 = await seedCredential(account);
      await seedCredential(otherAccount);
      const ids = async (p: { aiAccountId: string | null; after: string | null; limit: number }) => (await s.credentials.list({ workspaceId: ws.id, ...p })).map((c) => c.id);
      expect(await ids({ aiAccountId: null, after: null, limit: 10 })).toEqual([c3.id, c2.id, c1.id, c0.id]);
      expect(await ids({ aiAccountId: null, after: null, limit: 2 })).toEqual([c3.id, c2.id, c1.id]);
      expect(await ids({ aiAccountId: null, after: c2.id, limit: 2 })).toEqual([c1.id, c0.id]);
      expect(await ids({ aiAccountId: account.id, after: null, limit: 10 })).toEqual([c3.id, c2.id, c0.id]);
      expect(await ids({ aiAccountId: otherAccount.id, after: null, limit: 10 })).toEqual([]);
      const listed = await s.credentials.list({ workspaceId: ws.id, aiAccountId: null, after: null, limit: 10 });
      expect(listed[0]).toEqual(c3);
    });

    it("revokes an active credential once", async () => {
      const c = await seedCredential(account);
      expect(await s.credentials.revoke({ workspaceId: ws.id, credentialId: c.id, now: NOW })).toEqual({ kind: "revoked", credential: { ...c, state: "revoked", revokedAt: NOW } });
      expect(await s.credentials.revoke({ workspaceId: ws.id, credentialId: c.id, now: NOW })).toEqual({ kind: "already_revoked" });
      expect(await s.credentials.findById({ workspaceId: ws.id, credentialId: c.id })).toEqual({ ...c, state: "revoked", revokedAt: NOW });
    });

    it("does not revoke a credential of another workspace or one that does not exist", async () => {
      const c = await seedCredential(account);
      expect(await s.credentials.revoke({ workspaceId: other.id, credentialId: c.id, now: NOW })).toEqual({ kind: "not_found" });
      expect(await s.credentials.revoke({ workspaceId: ws.id, credentialId: makeCredential(account).id, now: NOW })).toEqual({ kind: "not_found" });
      expect((await s.credentials.findById({ workspaceId: ws.id, credentialId: c.id }))?.state).toBe("active");
    });

    it("of concurrent revokes, exactly one revokes", async () => {
      const c = await seedCredential(account);
      const results = await Promise.all(Array.from({ length: 6 }, () => s.credentials.revoke({ workspaceId: ws.id, credentialId: c.id, now: NOW })));
      expect(results.filter((r) => r.kind === "revoked")).toHaveLength(1);
      expect(results.filter((r) => r.kind === "already_revoked")).toHaveLength(5);
    });

    it("revokes every active credential of one account and returns those it revoked", async () => {
      const second = await seedAccount(ws.id);
      const a0 = await seedCredential(account);
      const a1 = await seedCredential(account);
      const gone = await seedCredential(account);
      await s.credentials.revoke({ workspaceId: ws.id, credentialId: gone.id, now: new Date("2026-02-01T00:00:00.000Z") });
      const kept = await seedCredential(second);
      const revoked = await s.credentials.revokeAllForAccount({ workspaceId: ws.id, aiAccountId: account.id, now: NOW });
      expect([...revoked].sort((x, y) => (x.id < y.id ? -1 : 1))).toEqual([
        { ...a0, state: "revoked", revokedAt: NOW },
        { ...a1, state: "revoked", revokedAt: NOW },
      ]);
      expect((await s.credentials.findById({ workspaceId: ws.id, credentialId: gone.id }))?.revokedAt).toEqual(new Date("2026-02-01T00:00:00.000Z"));
      expect((await s.credentials.findById({ workspaceId: ws.id, credentialId: kept.id }))?.state).toBe("active");
      expect(await s.credentials.revokeAllForAccount({ workspaceId: other.id, aiAccountId: account.id, now: NOW })).toEqual([]);
      expect(await s.credentials.revokeAllForAccount({ workspaceId: ws.id, aiAccountId: account.id, now: NOW })).toEqual([]);
    });

    it("marks a credential rotated, cutting its expiry to the overlap end", async () => {
      const c = await seedCredential(account, { expiresAt: new Date("2027-01-01T00:00:00.000Z") });
      const successor = makeCredential(account).id;
      const overlapEndsAt = new Date("2026-03-01T00:05:00.000Z");
      const result = await s.credentials.markRotated({ workspaceId: ws.id, credentialId: c.id, successorId: successor, overlapEndsAt });
      expect(result).toEqual({ kind: "rotated", credential: { ...c, rotatedToId: successor, expiresAt: overlapEndsAt } });
      expect(await s.credentials.findById({ workspaceId: ws.id, credentialId: c.id })).toEqual({ ...c, rotatedToId: successor, expiresAt: overlapEndsAt });
    });

    it("keeps an expiry earlier than the overlap end, and sets one where there was none", async () => {
      const soon = new Date("2026-03-01T00:01:00.000Z");
      const c = await seedCredential(account, { expiresAt: soon });
      const result = await s.credentials.markRotated({ workspaceId: ws.id, credentialId: c.id, successorId: makeCredential(account).id, overlapEndsAt: new Date("2026-03-02T00:00:00.000Z") });
      expect(result.kind === "rotated" && result.credential.expiresAt).toEqual(soon);
      const open = await seedCredential(account, { expiresAt: null });
      const end = new Date("2026-03-02T00:00:00.000Z");
      const second = await s.credentials.markRotated({ workspaceId: ws.id, credentialId: open.id, successorId: makeCredential(account).id, overlapEndsAt: end });
      expect(second.kind === "rotated" && second.credential.expiresAt).toEqual(end);
    });

    it("refuses to rotate a rotated, revoked, foreign or missing credential", async () => {
      const c = await seedCredential(account);
      const end = new Date("2026-03-02T00:00:00.000Z");
      await s.credentials.markRotated({ workspaceId: ws.id, credentialId: c.id, successorId: makeCredential(account).id, overlapEndsAt: end });
      expect(await s.credentials.markRotated({ workspaceId: ws.id, credentialId: c.id, successorId: makeCredential(account).id, overlapEndsAt: end })).toEqual({ kind: "conflict" });
      const r = await seedCredential(account);
      await s.credentials.revoke({ workspaceId: ws.id, credentialId: r.id, now: NOW });
      expect(await s.credentials.markRotated({ workspaceId: ws.id, credentialId: r.id, successorId: makeCredential(account).id, overlapEndsAt: end })).toEqual({ kind: "conflict" });
      const f = await seedCredential(account);
      expect(await s.credentials.markRotated({ workspaceId: other.id, credentialId: f.id, successorId: makeCredential(account).id, overlapEndsAt: end })).toEqual({ kind: "not_found" });
      expect(await s.credentials.markRotated({ workspaceId: ws.id, credentialId: makeCredential(account).id, successorId: makeCredential(account).id, overlapEndsAt: end })).toEqual({ kind: "not_found" });
      expect((await s.credentials.findById({ workspaceId: ws.id, credentialId: f.id }))?.rotatedToId).toBeNull();
    });

    it("of concurrent rotations of one credential, exactly one wins", async () => {
      const c = await seedCredential(account);
      const end = new Date("2026-03-02T00:00:00.000Z");
      const results = await Promise.all(Array.from({ length: 6 }, () => s.credentials.markRotated({ workspaceId: ws.id, credentialId: c.id, successorId: makeCredential(account).id, overlapEndsAt: end })));
      expect(results.filter((r) => r.kind === "rotated")).toHaveLength(1);
      expect(results.filter((r) => r.kind === "conflict")).toHaveLength(5);
    });
  });
}
