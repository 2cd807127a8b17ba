import { describe, expect, it } from "vitest";
import { isDomainError } from "../errors.ts";
import { bootstrapScenarioWorkspace, seedAccount, seedTokenCredential } from "../testing/access-scenario.ts";
import { createInMemoryDeps } from "../testing/create-in-memory-deps.ts";
import { createAuthenticator } from "./authenticate.ts";
import type { Authenticator } from "./authenticate.ts";
import { newTokenSeal, tokenFromSeal } from "./token.ts";

async function refusal(authenticator: Authenticator, header: string | null): Promise<{ code: string; message: string }> {
  try {
    await authenticator.authenticate(header);
  } catch (e) {
    if (isDomainError(e)) return { code: e.code, message: e.message };
    throw e;
  }
  throw new Error("authentication unexpectedly succeeded");
}

async function setup() {
  const world = createInMemoryDeps();
  const authenticator = createAuthenticator(world.deps);
  const ws = await bootstrapScenarioWorkspace(world, "acme", authenticator);
  const account = await seedAccount(world, ws.workspace_id);
  return { world, authenticator, ws, account };
}

describe("createAuthenticator", () => {
  it("authenticates a valid bearer token to its credential, account and workspace", async () => {
    const { authenticator, world, ws, account } = await setup();
    const { credential, authorization } = await seedTokenCredential(world, account);
    const principal = await authenticator.authenticate(authorization);
    expect(principal.credential).toEqual(credential);
    expect(principal.account).toEqual(account);
    expect(principal.workspace.id).toBe(ws.workspace_id);
    expect(ws.principal.credential.id).toBe(ws.credential_id);
    expect((await authenticator.authenticate(`bearer   ${ws.token}`)).credential.id).toBe(ws.credential_id);
  });

  it("records a use on the credential and its account at most once a minute, without a write per request, and never for a refusal", async () => {
    const { authenticator, world, account } = await setup();
    const { credential, authorization } = await seedTokenCredential(world, account);
    let writes = 0;
    const recordUse = world.deps.stores.credentials.recordUse.bind(world.deps.stores.credentials);
    world.deps.stores.credentials.recordUse = (p) => ((writes += 1), recordUse(p));
    const lastUsed = async () => (await world.deps.stores.credentials.findById({ workspaceId: account.workspaceId, credentialId: credential.id }))?.lastUsedAt ?? null;
    const lastActive = async () => (await world.deps.stores.accounts.findById({ workspaceId: account.workspaceId, accountId: account.id }))?.lastActiveAt ?? null;
    expect(await lastUsed()).toBeNull();

    const first = world.clock.now();
    await authenticator.authenticate(authorization);
    expect(await lastUsed()).toEqual(first);
    expect(await lastActive()).toEqual(first);
    for (let i = 0; i < 20; i++) {
      world.clock.advance(2_000);
      await authenticator.authenticate(authorization);
    }
    // 40 s of requests (the cache read the row again meanwhile): one write.
    expect(writes).toBe(1);
    expect(await lastUsed()).toEqual(first);
    // Exactly a minute after the last record is not yet stale; a moment later is.
    world.clock.advance(20_000);
    await authenticator.authenticate(authorization);
    expect(writes).toBe(1);
    world.clock.advance(1);
    await authenticator.authenticate(authorization);
    expect(writes).toBe(2);
    expect(await lastUsed()).toEqual(world.clock.now());
    expect(await lastActive()).toEqual(world.clock.now());

    // A refused request (its account frozen) records nothing; a failing write never fails the request.
    world.clock.advance(120_000);
    await world.deps.stores.accounts.transition({ workspaceId: account.workspaceId, accountId: account.id, from: ["active"], to: "frozen", now: world.clock.now() });
    expect((await refusal(authenticator, authorization)).code).toBe("SVC_FROZEN");
    expect(writes).toBe(2);
    await world.deps.stores.accounts.transition({ workspaceId: account.workspaceId, accountId: account.id, from: ["frozen"], to: "active", now: world.clock.now() });
    world.deps.stores.credentials.recordUse = () => Promise.reject(new Error("database down"));
    await expect(authenticator.authenticate(authorization)).resolves.toBeDefined();
  });

  it("refuses missing, malformed, unknown, revoked and expired credentials alike: 401 with one message", async () => {
    const { authenticator, world, account } = await setup();
    const revoked = await seedTokenCredential(world, account, { state: "revoked", revokedAt: world.clock.now() });
    const expired = await seedTokenCredential(world, account, { expiresAt: world.clock.now() });
    const unknown = `Bearer ${tokenFromSeal(world.deps.secrets.pepper, "operational", newTokenSeal())}`;
    const otherPepper = `Bearer ${tokenFromSeal(new Uint8Array(32), "operational", newTokenSeal())}`;
    const headers = [null, "", "Bearer", "Bearer ", "Basic abc", "Bearer agq_op_short", "Bearer not-a-token-at-all", `Token ${revoked.token}`, `Bearer ${revoked.token} extra`, unknown, otherPepper, revoked.authorization, expired.authorization];
    const refusals = await Promise.all(headers.map((h) => refusal(authenticator, h)));
    for (const r of refusals) expect(r.code).toBe("SVC_UNAUTHENTICATED");
    expect(new Set(refusals.map((r) => r.message)).size).toBe(1);
  });

  it("refuses a credential whose expiry is now, accepts one a millisecond before", async () => {
    const { authenticator, world, account } = await setup();
    const c = await seedTokenCredential(world, account, { expiresAt: new Date(world.clock.now().getTime() + 1) });
    await expect(authenticator.authenticate(c.authorization)).resolves.toBeDefined();
    world.clock.advance(1);
    expect((await refusal(authenticator, c.authorization)).code).toBe("SVC_UNAUTHENTICATED");
  });

  it("refuses every credential of a revoked account at once, although the credential is cached", async () => {
    const { authenticator, world, account } = await setup();
    const c = await seedTokenCredential(world, account);
    await authenticator.authenticate(c.authorization);
    await world.deps.stores.accounts.transition({ workspaceId: account.workspaceId, accountId: account.id, from: ["active"], to: "revoked", now: world.clock.now() });
    expect((await refusal(authenticator, c.authorization)).code).toBe("SVC_UNAUTHENTICATED");
  });

  it("gives 403 SVC_FROZEN for a frozen account and for a frozen workspace, on the very next request", async () => {
    const { authenticator, world, ws, account } = await setup();
    const c = await seedTokenCredential(world, account);
    await authenticator.authenticate(c.authorization);
    await world.deps.stores.accounts.transition({ workspaceId: account.workspaceId, accountId: account.id, from: ["active"], to: "frozen", now: world.clock.now() });
    expect((await refusal(authenticator, c.authorization)).code).toBe("SVC_FROZEN");
    await expect(authenticator.authenticate(ws.authorization)).resolves.toBeDefined();

    await world.deps.stores.workspaces.setState({ workspaceId: ws.workspace_id, state: "frozen" });
    expect((await refusal(authenticator, ws.authorization)).code).toBe("SVC_FROZEN");
    await world.deps.stores.workspaces.setState({ workspaceId: ws.workspace_id, state: "active" });
    await expect(authenticator.authenticate(ws.authorization)).resolves.toBeDefined();
  });

  it("gives 403 SVC_WORKSPACE_CLOSED for a closed workspace", async () => {
    const { authenticator, world, ws } = await setup();
    await world.deps.stores.workspaces.setState({ workspaceId: ws.workspace_id, state: "closed" });
    expect((await refusal(authenticator, ws.authorization)).code).toBe("SVC_WORKSPACE_CLOSED");
  });

  it("forget() makes a revoke through this process effective on the next request", async () => {
    const { authenticator, world, account } = await setup();
    const c = await seedTokenCredential(world, account);
    await authenticator.authenticate(c.authorization);
    await world.deps.stores.credentials.revoke({ workspaceId: account.workspaceId, credentialId: c.credential.id, now: world.clock.now() });
    // Without forget, the cached record is still trusted within the TTL (the designed lag)...
    await expect(authenticator.authenticate(c.authorization)).resolves.toBeDefined();
    authenticator.forget(c.credential.id);
    // ...with it, the next request reads the store.
    expect((await refusal(authenticator, c.authorization)).code).toBe("SVC_UNAUTHENTICATED");
  });

  it("another process's cache refuses a revoked credential once its entry is 30 s old, not before", async () => {
    const { authenticator: here, world, account } = await setup();
    const elsewhere = createAuthenticator(world.deps);
    const c = await seedTokenCredential(world, account);
    await elsewhere.authenticate(c.authorization);
    world.clock.advance(10_000);
    await world.deps.stores.credentials.revoke({ workspaceId: account.workspaceId, credentialId: c.credential.id, now: world.clock.now() });
    here.forget(c.credential.id);
    expect((await refusal(here, c.authorization)).code).toBe("SVC_UNAUTHENTICATED");
    world.clock.advance(19_999);
    await expect(elsewhere.authenticate(c.authorization)).resolves.toBeDefined();
    world.clock.advance(1);
    expect((await refusal(elsewhere, c.authorization)).code).toBe("SVC_UNAUTHENTICATED");
  });

  it("does not cache unknown tokens: a credential stored after a miss works at once", async () => {
    const { authenticator, world, account } = await setup();
    const token = tokenFromSeal(world.deps.secrets.pepper, "operational", newTokenSeal());
    expect((await refusal(authenticator, `Bearer ${token}`)).code).toBe("SVC_UNAUTHENTICATED");
    const c = await seedTokenCredential(world, account);
    await expect(authenticator.authenticate(c.authorization)).resolves.toBeDefined();
  });

  it("keeps at most maxEntries credentials cached, dropping the oldest", async () => {
    const world = createInMemoryDeps();
    const small = createAuthenticator(world.deps, { maxEntries: 2 });
    const ws = await bootstrapScenarioWorkspace(world, "small", small);
    const account = await seedAccount(world, ws.workspace_id);
    const [a, b, c] = [await seedTokenCredential(world, account), await seedTokenCredential(world, account), await seedTokenCredential(world, account)];
    for (const x of [a, b, c]) await small.authenticate(x.authorization);
    for (const x of [a, b, c]) await world.deps.stores.credentials.revoke({ workspaceId: account.workspaceId, credentialId: x.credential.id, now: world.clock.now() });
    // a was evicted (read again: refused); b and c are still cached within the TTL.
    expect((await refusal(small, a.authorization)).code).toBe("SVC_UNAUTHENTICATED");
    await expect(small.authenticate(c.authorization)).resolves.toBeDefined();
  });
});
