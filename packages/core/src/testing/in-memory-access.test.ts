import { describe, expect, it } from "vitest";
import { makeAccount, makeCredential, makePerson, makeWorkspace } from "./access-fixtures.ts";
import { describeAccountStoreContract } from "./access-account-store.contract.ts";
import { describeCredentialStoreContract } from "./access-credential-store.contract.ts";
import { describeWorkspaceStoreContract } from "./access-workspace-store.contract.ts";
import { bindInMemoryAccessStores, InMemoryAccessTables } from "./in-memory-access.ts";
import { InMemoryTransaction } from "./in-memory-transaction.ts";

const make = async () => bindInMemoryAccessStores(new InMemoryAccessTables());

describeWorkspaceStoreContract(make);
describeAccountStoreContract(make);
describeCredentialStoreContract(make);

describe("in-memory access stores in a transaction", () => {
  it("rollback undoes every write made through the bound stores, and only those", async () => {
    const tables = new InMemoryAccessTables();
    const auto = bindInMemoryAccessStores(tables);
    const w = makeWorkspace();
    await auto.workspaces.create({ workspace: w, owner: makePerson(w.id) });
    const a = makeAccount(w.id);
    await auto.accounts.create({ account: a });
    const c = makeCredential(a);
    await auto.credentials.insert({ credential: c });

    const tx = new InMemoryTransaction();
    const s = bindInMemoryAccessStores(tables, tx);
    await s.workspaces.setState({ workspaceId: w.id, state: "frozen" });
    await s.accounts.transition({ workspaceId: w.id, accountId: a.id, from: ["active"], to: "revoked", now: new Date() });
    await s.credentials.revokeAllForAccount({ workspaceId: w.id, aiAccountId: a.id, now: new Date() });
    const added = makeCredential(a);
    await s.credentials.insert({ credential: added });
    const w2 = makeWorkspace();
    await s.workspaces.create({ workspace: w2, owner: makePerson(w2.id) });
    const outside = makeAccount(w.id);
    await auto.accounts.create({ account: outside });
    tx.rollback();

    expect(await auto.workspaces.findById({ workspaceId: w.id })).toEqual(w);
    expect(await auto.workspaces.findById({ workspaceId: w2.id })).toBeNull();
    expect(await auto.workspaces.findOwner({ workspaceId: w2.id })).toBeNull();
    expect(await auto.accounts.findById({ workspaceId: w.id, accountId: a.id })).toEqual(a);
    expect(await auto.credentials.findById({ workspaceId: w.id, credentialId: c.id })).toEqual(c);
    expect(await auto.credentials.findById({ workspaceId: w.id, credentialId: added.id })).toBeNull();
    expect(await auto.accounts.findById({ workspaceId: w.id, accountId: outside.id })).toEqual(outside);
  });

  it("hands out copies: changing a returned record does not change the store", async () => {
    const s = bindInMemoryAccessStores(new InMemoryAccessTables());
    const w = makeWorkspace();
    await s.workspaces.create({ workspace: w, owner: makePerson(w.id) });
    const a = makeAccount(w.id);
    await s.accounts.create({ account: a });
    const c = makeCredential(a);
    await s.credentials.insert({ credential: c });
    const read = await s.credentials.findById({ workspaceId: w.id, credentialId: c.id });
    read?.scopes.push("manage_credentials");
    expect((await s.credentials.findById({ workspaceId: w.id, credentialId: c.id }))?.scopes).toEqual(c.scopes);
  });
});
