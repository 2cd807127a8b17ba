import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { beforeEach, describe, expect, it } from "vitest";
import type { Person, PersonSession } from "../access/model.ts";
import type { PersonToken, PersonTokenPurpose } from "../people/person-tokens.ts";
import type { Stores } from "../ports.ts";
import { fixtureId, makeAccount, makeCredential, makePerson, makeWorkspace } from "./access-fixtures.ts";

/** The stores the people-admin contract uses, bound to the pool (each call its own transaction). */
export type PersonAdminStoresUnderTest = Pick<Stores, "workspaces" | "people" | "personSessions" | "personTokens" | "workspacePeople" | "workspaceLifecycle" | "accounts" | "credentials">;

const T0 = new Date("2026-03-01T10:00:00.000Z");
const at = (ms: number) => new Date(T0.getTime() + ms);

/** A token record of `person` with a unique hash. */
export function makePersonToken(person: Pick<Person, "id" | "workspaceId">, overrides: Partial<PersonToken> = {}): PersonToken {
  const id = overrides.id ?? fixtureId();
  return { id, workspaceId: person.workspaceId, personId: person.id, purpose: "password_reset", tokenHash: bytesToHex(sha256(utf8ToBytes(`token-${id}`))), createdAt: T0, expiresAt: at(3_600_000), usedAt: null, ...overrides };
}

/**
 * The contract of PersonTokenStore and WorkspacePeopleStore (in memory and PostgreSQL): single
 * use under concurrency, expiry, counting, the last-owner rule (also under two concurrent
 * demotions), removal with sessions and tokens, the recorded owner kept on an owner, and
 * workspace scoping.
 * @param make the stores under test, called before each test.
 */
export function describePersonAdminStoresContract(make: () => Promise<PersonAdminStoresUnderTest>): void {
  describe("PersonTokenStore and WorkspacePeopleStore contract", () => {
    let s: PersonAdminStoresUnderTest;
    beforeEach(async () => {
      s = await make();
    });

    /** A workspace with its owner and, in order, further people with the given roles. */
    async function workspaceWith(...roles: Person["role"][]): Promise<{ workspaceId: string; owner: Person; people: Person[] }> {
      const workspace = makeWorkspace();
      const owner = makePerson(workspace.id, { createdAt: at(0) });
      await s.workspaces.create({ workspace, owner });
      const people: Person[] = [];
      for (const [i, role] of roles.entries()) {
        const person = makePerson(workspace.id, { role, createdAt: at(i + 1) });
        await s.people.insert({ person });
        people.push(person);
      }
      return { workspaceId: workspace.id, owner, people };
    }

    function session(person: Person): PersonSession {
      const id = fixtureId();
      return { id, workspaceId: person.workspaceId, personId: person.id, stage: "active", tokenHash: bytesToHex(sha256(utf8ToBytes(`session-${id}`))), createdWithMfa: false, createdAt: T0, lastSeenAt: T0, expiresAt: at(3_600_000), stepUpUntil: null, endedAt: null };
    }

    it("finds a token by its hash, spends it once, and never a used, expired or unknown one", async () => {
      const { owner } = await workspaceWith();
      const token = makePersonToken(owner);
      await s.personTokens.insert({ token });
      expect(await s.personTokens.findByHash({ tokenHash: token.tokenHash })).toEqual(token);
      expect(await s.personTokens.spend({ tokenHash: token.tokenHash, now: at(1000) })).toEqual({ kind: "spent", token: { ...token, usedAt: at(1000) } });
      expect(await s.personTokens.spend({ tokenHash: token.tokenHash, now: at(2000) })).toEqual({ kind: "unusable" });
      const expired = makePersonToken(owner, { expiresAt: at(5000) });
      await s.personTokens.insert({ token: expired });
      expect(await s.personTokens.spend({ tokenHash: expired.tokenHash, now: at(5000) })).toEqual({ kind: "unusable" });
      expect(await s.personTokens.findByHash({ tokenHash: expired.tokenHash })).toMatchObject({ usedAt: null });
      expect(await s.personTokens.spend({ tokenHash: "0".repeat(64), now: at(0) })).toEqual({ kind: "unusable" });
      expect(await s.personTokens.findByHash({ tokenHash: "0".repeat(64) })).toBeNull();
    });

    it("lets exactly one of concurrent spends of a token win", async () => {
      const { owner } = await workspaceWith();
      const token = makePersonToken(owner);
      await s.personTokens.insert({ token });
      const results = await Promise.all(Array.from({ length: 8 }, () => s.personTokens.spend({ tokenHash: token.tokenHash, now: at(1000) })));
      expect(results.filter((r) => r.kind === "spent")).toHaveLength(1);
    });

    it("counts the tokens of a purpose issued to a person since a time, and spends all of a person's unused tokens", async () => {
      const { owner, people } = await workspaceWith("admin");
      const other = people[0]!;
      const issue = async (person: Person, purpose: PersonTokenPurpose, createdAt: Date, usedAt: Date | null = null) => {
        const token = makePersonToken(person, { purpose, createdAt, expiresAt: at(7_200_000), usedAt });
        await s.personTokens.insert({ token });
        return token;
      };
      await issue(owner, "password_reset", at(0));
      await issue(owner, "password_reset", at(60_000), at(70_000));
      await issue(owner, "invitation", at(60_000));
      const others = await issue(other, "password_reset", at(60_000));
      expect(await s.personTokens.countIssuedSince({ workspaceId: owner.workspaceId, personId: owner.id, purpose: "password_reset", since: at(0) })).toBe(2);
      expect(await s.personTokens.countIssuedSince({ workspaceId: owner.workspaceId, personId: owner.id, purpose: "password_reset", since: at(1) })).toBe(1);
      expect(await s.personTokens.countIssuedSince({ workspaceId: owner.workspaceId, personId: owner.id, purpose: "invitation", since: at(0) })).toBe(1);
      expect(await s.personTokens.countIssuedSince({ workspaceId: makeWorkspace().id, personId: owner.id, purpose: "password_reset", since: at(0) })).toBe(0);
      expect(await s.personTokens.spendAllOfPerson({ workspaceId: owner.workspaceId, personId: owner.id, now: at(80_000) })).toBe(2);
      expect(await s.personTokens.spendAllOfPerson({ workspaceId: owner.workspaceId, personId: owner.id, now: at(90_000) })).toBe(0);
      expect(await s.personTokens.findByHash({ tokenHash: others.tokenHash })).toMatchObject({ usedAt: null });
    });

    it("purges tokens that expired before a time, and only those", async () => {
      const { owner } = await workspaceWith();
      const old = makePersonToken(owner, { createdAt: at(-7_200_000), expiresAt: at(-3_600_000) });
      const live = makePersonToken(owner, { expiresAt: at(3_600_000) });
      await s.personTokens.insert({ token: old });
      await s.personTokens.insert({ token: live });
      expect(await s.personTokens.purgeExpiredBefore({ before: at(0) })).toBeGreaterThanOrEqual(1);
      expect(await s.personTokens.findByHash({ tokenHash: old.tokenHash })).toBeNull();
      expect(await s.personTokens.findByHash({ tokenHash: live.tokenHash })).toEqual(live);
    });

    it("lists and counts a workspace's people oldest first, and no one else's", async () => {
      const { workspaceId, owner, people } = await workspaceWith("viewer", "admin");
      await workspaceWith("admin");
      expect((await s.workspacePeople.list({ workspaceId })).map((p) => p.id)).toEqual([owner.id, ...people.map((p) => p.id)]);
      expect(await s.workspacePeople.count({ workspaceId })).toBe(3);
      expect(await s.workspacePeople.list({ workspaceId: makeWorkspace().id })).toEqual([]);
    });

    it("changes a role, refuses to demote the last owner, and keeps the recorded owner on an owner", async () => {
      const { workspaceId, owner, people } = await workspaceWith("admin");
      const admin = people[0]!;
      expect(await s.workspacePeople.setRole({ workspaceId, personId: owner.id, role: "admin" })).toEqual({ kind: "last_owner" });
      expect(await s.people.findById({ workspaceId, personId: owner.id })).toMatchObject({ role: "owner" });
      expect(await s.workspacePeople.setRole({ workspaceId, personId: admin.id, role: "owner" })).toEqual({ kind: "changed", before: admin, person: { ...admin, role: "owner" } });
      expect(await s.workspacePeople.setRole({ workspaceId, personId: owner.id, role: "viewer" })).toMatchObject({ kind: "changed", person: { role: "viewer" } });
      expect((await s.workspaces.findOwner({ workspaceId }))?.id).toBe(admin.id);
      expect(await s.workspacePeople.setRole({ workspaceId, personId: admin.id, role: "viewer" })).toEqual({ kind: "last_owner" });
      expect(await s.workspacePeople.setRole({ workspaceId: makeWorkspace().id, personId: admin.id, role: "viewer" })).toEqual({ kind: "not_found" });
    });

    it("lets only one of two owners demoting each other at once succeed", async () => {
      const { workspaceId, owner, people } = await workspaceWith("owner");
      const second = people[0]!;
      const results = await Promise.all([s.workspacePeople.setRole({ workspaceId, personId: owner.id, role: "viewer" }), s.workspacePeople.setRole({ workspaceId, personId: second.id, role: "viewer" })]);
      expect(results.map((r) => r.kind).sort()).toEqual(["changed", "last_owner"]);
      expect((await s.workspacePeople.list({ workspaceId })).filter((p) => p.role === "owner")).toHaveLength(1);
    });

    it("removes a person with their sessions and tokens, never the last owner, and keeps the recorded owner on an owner", async () => {
      const { workspaceId, owner, people } = await workspaceWith("viewer", "owner");
      const [viewer, second] = [people[0]!, people[1]!];
      const viewerSession = session(viewer);
      await s.personSessions.insert({ session: viewerSession });
      const token = makePersonToken(viewer);
      await s.personTokens.insert({ token });
      expect(await s.workspacePeople.remove({ workspaceId, personId: viewer.id })).toEqual({ kind: "removed", person: viewer });
      expect(await s.people.findById({ workspaceId, personId: viewer.id })).toBeNull();
      expect(await s.personSessions.findByTokenHash({ tokenHash: viewerSession.tokenHash })).toBeNull();
      expect(await s.personTokens.findByHash({ tokenHash: token.tokenHash })).toBeNull();
      expect(await s.workspacePeople.remove({ workspaceId, personId: viewer.id })).toEqual({ kind: "not_found" });
      expect(await s.workspacePeople.remove({ workspaceId, personId: owner.id })).toEqual({ kind: "removed", person: owner });
      expect((await s.workspaces.findOwner({ workspaceId }))?.id).toBe(second.id);
      expect(await s.workspacePeople.remove({ workspaceId, personId: second.id })).toEqual({ kind: "last_owner" });
      expect(await s.workspacePeople.remove({ workspaceId: makeWorkspace().id, personId: second.id })).toEqual({ kind: "not_found" });
    });

    it("erases a person whatever their role, and tells whether the workspace is left without an owner", async () => {
      const { workspaceId, owner, people } = await workspaceWith("owner", "viewer");
      const [second, viewer] = [people[0]!, people[1]!];
      expect(await s.workspacePeople.erase({ workspaceId, personId: viewer.id })).toEqual({ kind: "erased", person: viewer, wasLastOwner: false });
      expect(await s.workspacePeople.erase({ workspaceId, personId: owner.id })).toEqual({ kind: "erased", person: owner, wasLastOwner: false });
      expect(await s.workspacePeople.erase({ workspaceId, personId: second.id })).toEqual({ kind: "erased", person: second, wasLastOwner: true });
      expect(await s.workspacePeople.list({ workspaceId })).toEqual([]);
      expect(await s.workspacePeople.erase({ workspaceId, personId: second.id })).toEqual({ kind: "not_found" });
    });

    it("closes a workspace once, revoking every AI account and active credential; freezing revokes too and leaves a closed workspace closed", async () => {
      const { workspaceId } = await workspaceWith();
      const account = makeAccount(workspaceId);
      await s.accounts.create({ account });
      const credential = makeCredential(account);
      await s.credentials.insert({ credential });
      const closed = await s.workspaceLifecycle.close({ workspaceId, now: at(1000) });
      expect(closed).toMatchObject({ kind: "closed", workspace: { id: workspaceId, state: "closed", closedAt: at(1000) }, accountIds: [account.id], credentialIds: [credential.id] });
      expect(await s.accounts.findById({ workspaceId, accountId: account.id })).toMatchObject({ state: "revoked" });
      expect(await s.credentials.findById({ workspaceId, credentialId: credential.id })).toMatchObject({ state: "revoked" });
      expect(await s.workspaces.findById({ workspaceId })).toMatchObject({ state: "closed", closedAt: at(1000) });
      expect(await s.workspaceLifecycle.close({ workspaceId, now: at(2000) })).toMatchObject({ kind: "already_closed", workspace: { closedAt: at(1000) } });
      expect(await s.workspaceLifecycle.freezeAndRevoke({ workspaceId, now: at(3000) })).toMatchObject({ workspace: { state: "closed" }, accountIds: [], credentialIds: [] });
      expect(await s.workspaceLifecycle.close({ workspaceId: makeWorkspace().id, now: at(0) })).toEqual({ kind: "not_found" });

      const other = await workspaceWith();
      const a2 = makeAccount(other.workspaceId);
      await s.accounts.create({ account: a2 });
      expect(await s.workspaceLifecycle.freezeAndRevoke({ workspaceId: other.workspaceId, now: at(0) })).toMatchObject({ workspace: { state: "frozen" }, accountIds: [a2.id] });
      expect(await s.workspaceLifecycle.freezeAndRevoke({ workspaceId: makeWorkspace().id, now: at(0) })).toBeNull();
    });

    it("lists closed workspaces due for payload deletion and stops listing one once its payloads are done", async () => {
      const { workspaceId } = await workspaceWith();
      expect(await s.workspaceLifecycle.dueForPayloadDeletion({ closedBefore: at(10_000), limit: 1000 })).not.toContain(workspaceId);
      await s.workspaceLifecycle.close({ workspaceId, now: at(1000) });
      expect(await s.workspaceLifecycle.dueForPayloadDeletion({ closedBefore: at(999), limit: 1000 })).not.toContain(workspaceId);
      expect(await s.workspaceLifecycle.dueForPayloadDeletion({ closedBefore: at(1000), limit: 1000 })).toContain(workspaceId);
      expect(await s.workspaceLifecycle.deletePayloads({ workspaceId, now: at(2000), limit: 10 })).toEqual({ deleted: 0, done: true });
      expect(await s.workspaceLifecycle.dueForPayloadDeletion({ closedBefore: at(10_000), limit: 1000 })).not.toContain(workspaceId);
    });
  });
}
