import { beforeEach, describe, expect, it } from "vitest";
import type { Person } from "../access/model.ts";
import type { LinkedIdentity } from "../oidc/oidc-identity.ts";
import type { Stores } from "../ports.ts";
import { fixtureId, makePerson, makeWorkspace } from "./access-fixtures.ts";

/** The stores the linked-identity contract uses, bound to the pool. */
export type LinkedIdentityStoresUnderTest = Pick<Stores, "workspaces" | "people" | "linkedIdentities" | "workspacePeople">;

const T0 = new Date("2026-03-01T10:00:00.000Z");
const ISSUER = "https://idp.contract.test";

/** An identity of `person` at ISSUER with a unique subject. */
export function makeLinkedIdentity(person: Pick<Person, "id" | "workspaceId">, overrides: Partial<LinkedIdentity> = {}): LinkedIdentity {
  return { id: fixtureId(), workspaceId: person.workspaceId, personId: person.id, issuer: ISSUER, subject: `sub-${fixtureId()}`, createdAt: T0, ...overrides };
}

/**
 * The contract of LinkedIdentityStore (in memory and PostgreSQL): an issuer and subject link one
 * person at most (also under concurrent links), lookups by subject and by person, and removal
 * with the person.
 * @param make the stores under test, bound to the pool, called before each test.
 */
export function describeLinkedIdentityStoreContract(make: () => Promise<LinkedIdentityStoresUnderTest>): void {
  describe("LinkedIdentityStore contract", () => {
    let s: LinkedIdentityStoresUnderTest;
    beforeEach(async () => {
      s = await make();
    });

    async function twoPeople(): Promise<{ owner: Person; other: Person }> {
      const workspace = makeWorkspace();
      const owner = makePerson(workspace.id, { createdAt: T0 });
      await s.workspaces.create({ workspace, owner });
      const other = makePerson(workspace.id, { role: "admin", createdAt: new Date(T0.getTime() + 1) });
      await s.people.insert({ person: other });
      return { owner, other };
    }

    it("links an identity once: the same issuer and subject again, for anyone, is already_linked with the stored one", async () => {
      const { owner, other } = await twoPeople();
      const identity = makeLinkedIdentity(owner);
      expect(await s.linkedIdentities.link({ identity })).toEqual({ kind: "linked" });
      expect(await s.linkedIdentities.findBySubject({ issuer: ISSUER, subject: identity.subject })).toEqual(identity);
      expect(await s.linkedIdentities.link({ identity: { ...identity, id: fixtureId() } })).toEqual({ kind: "already_linked", identity });
      expect(await s.linkedIdentities.link({ identity: makeLinkedIdentity(other, { subject: identity.subject }) })).toEqual({ kind: "already_linked", identity });
      // The same subject at another issuer is another identity.
      expect(await s.linkedIdentities.link({ identity: makeLinkedIdentity(other, { subject: identity.subject, issuer: "https://other.contract.test" }) })).toEqual({ kind: "linked" });
      expect(await s.linkedIdentities.findBySubject({ issuer: ISSUER, subject: "nobody" })).toBeNull();
    });

    it("lets exactly one of concurrent links of one issuer and subject win", async () => {
      const { owner, other } = await twoPeople();
      const subject = `sub-${fixtureId()}`;
      const results = await Promise.all(Array.from({ length: 6 }, (_, i) => s.linkedIdentities.link({ identity: makeLinkedIdentity(i % 2 === 0 ? owner : other, { subject }) })));
      expect(results.filter((r) => r.kind === "linked")).toHaveLength(1);
    });

    it("lists a person's identities oldest first, scoped by workspace, and deletes them with the person", async () => {
      const { owner, other } = await twoPeople();
      const first = makeLinkedIdentity(other, { createdAt: T0 });
      const second = makeLinkedIdentity(other, { createdAt: new Date(T0.getTime() + 1000), issuer: "https://second.contract.test" });
      await s.linkedIdentities.link({ identity: second });
      await s.linkedIdentities.link({ identity: first });
      await s.linkedIdentities.link({ identity: makeLinkedIdentity(owner) });
      expect(await s.linkedIdentities.listOfPerson({ workspaceId: other.workspaceId, personId: other.id })).toEqual([first, second]);
      expect(await s.linkedIdentities.listOfPerson({ workspaceId: "another-workspace", personId: other.id })).toEqual([]);
      expect((await s.workspacePeople.remove({ workspaceId: other.workspaceId, personId: other.id })).kind).toBe("removed");
      expect(await s.linkedIdentities.listOfPerson({ workspaceId: other.workspaceId, personId: other.id })).toEqual([]);
      expect(await s.linkedIdentities.findBySubject({ issuer: ISSUER, subject: first.subject })).toBeNull();
      expect(await s.linkedIdentities.listOfPerson({ workspaceId: owner.workspaceId, personId: owner.id })).toHaveLength(1);
      expect((await s.workspacePeople.erase({ workspaceId: owner.workspaceId, personId: owner.id })).kind).toBe("erased");
      expect(await s.linkedIdentities.listOfPerson({ workspaceId: owner.workspaceId, personId: owner.id })).toEqual([]);
    });
  });
}
