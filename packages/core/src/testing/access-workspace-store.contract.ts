import { beforeEach, describe, expect, it } from "vitest";
import { makePerson, makeWorkspace } from "./access-fixtures.ts";
import type { AccessStoresFactory, AccessStoresUnderTest } from "./access-stores-factory.ts";

/**
 * The contract every WorkspaceStore adapter passes (InMemoryWorkspaceStore, PgWorkspaceStore).
 * @param make returns the stores under test, called before each test.
 */
export function describeWorkspaceStoreContract(make: AccessStoresFactory): void {
  describe("WorkspaceStore contract", () => {
    let s: AccessStoresUnderTest;
    beforeEach(async () => {
      s = await make();
    });

    it("creates a workspace with its owner and reads both back", async () => {
      const workspace = makeWorkspace();
      const owner = makePerson(workspace.id, { passwordHash: "$scrypt$ln=15,r=8,p=1$c2FsdA$aGFzaA" });
      expect(await s.workspaces.create({ workspace, owner })).toEqual({ kind: "created" });
      expect(await s.workspaces.findById({ workspaceId: workspace.id })).toEqual(workspace);
      expect(await s.workspaces.findOwner({ workspaceId: workspace.id })).toEqual(owner);
    });

    it("returns null for a workspace or owner that does not exist", async () => {
      const missing = makeWorkspace();
      expect(await s.workspaces.findById({ workspaceId: missing.id })).toBeNull();
      expect(await s.workspaces.findOwner({ workspaceId: missing.id })).toBeNull();
      expect(await s.workspaces.setState({ workspaceId: missing.id, state: "frozen" })).toBeNull();
    });

    it("refuses an email already used by another workspace's owner and writes nothing", async () => {
      const first = makeWorkspace();
      const owner = makePerson(first.id);
      await s.workspaces.create({ workspace: first, owner });
      const second = makeWorkspace();
      const result = await s.workspaces.create({ workspace: second, owner: makePerson(second.id, { email: owner.email }) });
      expect(result).toEqual({ kind: "email_taken" });
      expect(await s.workspaces.findById({ workspaceId: second.id })).toBeNull();
    });

    it("of two concurrent creates with the same email, exactly one wins", async () => {
      const email = makePerson("x").email;
      const attempts = Array.from({ length: 5 }, () => {
        const w = makeWorkspace();
        return s.workspaces.create({ workspace: w, owner: makePerson(w.id, { email }) });
      });
      const results = await Promise.all(attempts);
      expect(results.filter((r) => r.kind === "created")).toHaveLength(1);
      expect(results.filter((r) => r.kind === "email_taken")).toHaveLength(4);
    });

    it("sets the state and keeps it", async () => {
      const workspace = makeWorkspace();
      await s.workspaces.create({ workspace, owner: makePerson(workspace.id) });
      expect(await s.workspaces.setState({ workspaceId: workspace.id, state: "frozen" })).toEqual({ ...workspace, state: "frozen" });
      expect((await s.workspaces.findById({ workspaceId: workspace.id }))?.state).toBe("frozen");
      await s.workspaces.setState({ workspaceId: workspace.id, state: "closed" });
      expect((await s.workspaces.findById({ workspaceId: workspace.id }))?.state).toBe("closed");
    });

    it("changes only the named workspace", async () => {
      const a = makeWorkspace();
      const b = makeWorkspace();
      await s.workspaces.create({ workspace: a, owner: makePerson(a.id) });
      await s.workspaces.create({ workspace: b, owner: makePerson(b.id) });
      await s.workspaces.setState({ workspaceId: a.id, state: "frozen" });
      expect((await s.workspaces.findById({ workspaceId: b.id }))?.state).toBe("active");
    });
  });
}
