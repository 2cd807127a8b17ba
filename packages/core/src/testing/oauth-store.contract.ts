import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { beforeEach, describe, expect, it } from "vitest";
import type { AiAccount, Workspace } from "../access/model.ts";
import type { AuthorizationCode, OAuthClient, OAuthGrant, RefreshTokenRecord } from "../oauth/model.ts";
import type { AccountStore, CredentialStore, OAuthStore, WorkspaceStore } from "../ports.ts";
import { fixtureId, makeAccount, makeCredential, makePerson, makeWorkspace } from "./access-fixtures.ts";

/** The stores an OAuthStore contract run needs: they share one database. */
export interface OAuthStoresUnderTest {
  workspaces: WorkspaceStore;
  accounts: AccountStore;
  credentials: CredentialStore;
  oauth: OAuthStore;
}

/** Builds (or hands back) the stores under test; called before every test. */
export type OAuthStoresFactory = () => Promise<OAuthStoresUnderTest>;

const AT = new Date("2026-03-01T00:00:00.000Z");
const later = (ms: number) => new Date(AT.getTime() + ms);
const hashOf = (text: string) => bytesToHex(sha256(utf8ToBytes(text)));

/** A registered client (override any field). */
export function makeOAuthClient(overrides: Partial<OAuthClient> = {}): OAuthClient {
  const id = overrides.id ?? fixtureId();
  return { id, name: `client ${id}`, redirectUris: ["http://127.0.0.1:3000/callback", "cursor://anysphere.cursor-retrieval/oauth/callback"], metadata: { client_name: `client ${id}`, token_endpoint_auth_method: "none" }, createdAt: AT, lastUsedAt: null, ...overrides };
}

/** An unconsumed authorization code of `account` for `clientId`, expiring ten minutes after AT. */
export function makeAuthorizationCode(account: Pick<AiAccount, "id" | "workspaceId">, clientId: string, overrides: Partial<AuthorizationCode> = {}): AuthorizationCode {
  const id = overrides.id ?? fixtureId();
  return {
    id,
    workspaceId: account.workspaceId,
    clientId,
    codeHash: hashOf(`code-${id}`),
    personId: null,
    aiAccountId: account.id,
    scopes: ["send", "get_pending"],
    redirectUri: "http://127.0.0.1:3000/callback",
    codeChallenge: "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM",
    resource: "http://127.0.0.1:8080/mcp",
    createdAt: AT,
    expiresAt: later(600_000),
    consumedAt: null,
    grantId: null,
    ...overrides,
  };
}

/** An active grant of `account` for `clientId`. */
export function makeGrant(account: Pick<AiAccount, "id" | "workspaceId">, clientId: string, overrides: Partial<OAuthGrant> = {}): OAuthGrant {
  const id = overrides.id ?? fixtureId();
  return {
    id,
    workspaceId: account.workspaceId,
    clientId,
    clientName: "Claude Code",
    redirectUri: "http://localhost:33418/callback",
    aiAccountId: account.id,
    personId: null,
    scopes: ["send", "get_pending", "ack"],
    createdAt: AT,
    lastUsedAt: AT,
    refreshExpiresAt: later(30 * 86_400_000),
    revokedAt: null,
    revokedReason: null,
    ...overrides,
  };
}

/** An unspent refresh token of `grant`, generation 1 unless overridden. */
export function makeRefreshToken(grant: Pick<OAuthGrant, "id" | "workspaceId" | "clientId">, overrides: Partial<RefreshTokenRecord> = {}): RefreshTokenRecord {
  const id = overrides.id ?? fixtureId();
  return { id, workspaceId: grant.workspaceId, grantId: grant.id, clientId: grant.clientId, generation: 1, tokenHash: hashOf(`rt-${id}`), createdAt: AT, expiresAt: later(30 * 86_400_000), spentAt: null, revokedAt: null, ...overrides };
}

/**
 * The contract every OAuthStore adapter passes (InMemoryOAuthStore, PgOAuthStore): clients and
 * their expiry, consume-once codes, grants scoped by workspace, the grant revocation cascade, and
 * rotate-once refresh tokens that remember only the most recently spent generation.
 */
export function describeOAuthStoreContract(make: OAuthStoresFactory): void {
  describe("OAuthStore contract", () => {
    let s: OAuthStoresUnderTest;
    let ws: Workspace;
    let other: Workspace;
    let account: AiAccount;
    let otherAccount: AiAccount;
    let client: OAuthClient;

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
    async function seedGrant(owner: AiAccount = account, overrides: Partial<OAuthGrant> = {}): Promise<OAuthGrant> {
      const g = makeGrant(owner, client.id, overrides);
      await s.oauth.insertGrant({ grant: g });
      return g;
    }
    async function seedRefresh(grant: OAuthGrant, overrides: Partial<RefreshTokenRecord> = {}): Promise<RefreshTokenRecord> {
      const t = makeRefreshToken(grant, overrides);
      await s.oauth.insertRefreshToken({ token: t });
      return t;
    }

    beforeEach(async () => {
      s = await make();
      ws = await seedWorkspace();
      other = await seedWorkspace();
      account = await seedAccount(ws.id);
      otherAccount = await seedAccount(other.id);
      client = makeOAuthClient();
      await s.oauth.insertClient({ client });
    });

    it("stores a client with every field, marks its use, and forgets unknown ids", async () => {
      expect(await s.oauth.findClient({ clientId: client.id })).toEqual(client);
      await s.oauth.touchClient({ clientId: client.id, now: later(5_000) });
      expect(await s.oauth.findClient({ clientId: client.id })).toEqual({ ...client, lastUsedAt: later(5_000) });
      expect(await s.oauth.findClient({ clientId: fixtureId() })).toBeNull();
    });

    it("deletes clients never used past the unused bound and used ones past the idle bound, and no others", async () => {
      const base = new Date("2020-01-01T00:00:00.000Z");
      const at = (days: number) => new Date(base.getTime() + days * 86_400_000);
      const neverUsedOld = makeOAuthClient({ createdAt: at(0) });
      const neverUsedNew = makeOAuthClient({ createdAt: at(9) });
      const idle = makeOAuthClient({ createdAt: at(0), lastUsedAt: at(1) });
      const busy = makeOAuthClient({ createdAt: at(0), lastUsedAt: at(8) });
      for (const c of [neverUsedOld, neverUsedNew, idle, busy]) await s.oauth.insertClient({ client: c });
      const deleted = await s.oauth.deleteIdleClients({ unusedBefore: at(5), idleBefore: at(5), limit: 1000 });
      expect(deleted).toBeGreaterThanOrEqual(2);
      expect(await s.oauth.findClient({ clientId: neverUsedOld.id })).toBeNull();
      expect(await s.oauth.findClient({ clientId: idle.id })).toBeNull();
      expect(await s.oauth.findClient({ clientId: neverUsedNew.id })).not.toBeNull();
      expect(await s.oauth.findClient({ clientId: busy.id })).not.toBeNull();
    });

    it("consumes a code once: the winner gets it with consumedAt, every later call sees it consumed", async () => {
      const code = makeAuthorizationCode(account, client.id);
      await s.oauth.insertCode({ code });
      expect(await s.oauth.consumeCode({ codeHash: code.codeHash, now: later(1_000) })).toEqual({ kind: "consumed", code: { ...code, consumedAt: later(1_000) } });
      expect(await s.oauth.consumeCode({ codeHash: code.codeHash, now: later(2_000) })).toEqual({ kind: "already_consumed", code: { ...code, consumedAt: later(1_000) } });
      expect(await s.oauth.consumeCode({ codeHash: hashOf(`nothing-${fixtureId()}`), now: later(2_000) })).toEqual({ kind: "not_found" });
    });

    it("of concurrent consumptions of one code, exactly one wins", async () => {
      const code = makeAuthorizationCode(account, client.id);
      await s.oauth.insertCode({ code });
      const results = await Promise.all(Array.from({ length: 6 }, () => s.oauth.consumeCode({ codeHash: code.codeHash, now: later(1_000) })));
      expect(results.filter((r) => r.kind === "consumed")).toHaveLength(1);
      expect(results.filter((r) => r.kind === "already_consumed")).toHaveLength(5);
    });

    it("records the grant of a consumed code, only within its workspace; purges expired codes", async () => {
      const code = makeAuthorizationCode(account, client.id);
      await s.oauth.insertCode({ code });
      await s.oauth.consumeCode({ codeHash: code.codeHash, now: later(1) });
      const grantId = fixtureId();
      await s.oauth.setCodeGrant({ workspaceId: other.id, codeId: code.id, grantId: fixtureId() });
      await s.oauth.setCodeGrant({ workspaceId: ws.id, codeId: code.id, grantId });
      const seen = await s.oauth.consumeCode({ codeHash: code.codeHash, now: later(2) });
      expect(seen.kind === "already_consumed" && seen.code.grantId).toBe(grantId);
      const old = makeAuthorizationCode(account, client.id, { expiresAt: new Date("2020-01-01T00:10:00.000Z") });
      await s.oauth.insertCode({ code: old });
      expect(await s.oauth.purgeCodes({ before: new Date("2020-01-02T00:00:00.000Z"), limit: 1000 })).toBeGreaterThanOrEqual(1);
      expect(await s.oauth.consumeCode({ codeHash: old.codeHash, now: later(3) })).toEqual({ kind: "not_found" });
      expect((await s.oauth.consumeCode({ codeHash: code.codeHash, now: later(3) })).kind).toBe("already_consumed");
    });

    it("reads grants only within their workspace, lists them newest first and pages with after", async () => {
      const g0 = await seedGrant();
      const g1 = await seedGrant(account, { scopes: ["send"], personId: fixtureId(), clientName: null });
      const g2 = await seedGrant();
      await seedGrant(otherAccount);
      expect(await s.oauth.findGrant({ workspaceId: ws.id, grantId: g1.id })).toEqual(g1);
      expect(await s.oauth.findGrant({ workspaceId: other.id, grantId: g1.id })).toBeNull();
      const ids = async (after: string | null, limit: number) => (await s.oauth.listGrants({ workspaceId: ws.id, after, limit })).map((g) => g.id);
      expect(await ids(null, 10)).toEqual([g2.id, g1.id, g0.id]);
      expect(await ids(null, 1)).toEqual([g2.id, g1.id]);
      expect(await ids(g1.id, 10)).toEqual([g0.id]);
      expect(await s.oauth.latestGrantForClient({ workspaceId: ws.id, clientId: client.id })).toEqual(g2);
      expect(await s.oauth.latestGrantForClient({ workspaceId: ws.id, clientId: fixtureId() })).toBeNull();
    });

    it("records a use of an unrevoked grant only", async () => {
      const g = await seedGrant();
      await s.oauth.recordGrantUse({ workspaceId: ws.id, grantId: g.id, now: later(9_000), refreshExpiresAt: later(99_000) });
      expect(await s.oauth.findGrant({ workspaceId: ws.id, grantId: g.id })).toEqual({ ...g, lastUsedAt: later(9_000), refreshExpiresAt: later(99_000) });
      await s.oauth.revokeGrant({ workspaceId: ws.id, grantId: g.id, cause: "disconnected", now: later(10_000) });
      await s.oauth.recordGrantUse({ workspaceId: ws.id, grantId: g.id, now: later(11_000), refreshExpiresAt: later(111_000) });
      expect((await s.oauth.findGrant({ workspaceId: ws.id, grantId: g.id }))?.lastUsedAt).toEqual(later(9_000));
    });

    it("a use of an access credential (CredentialStore.recordUse) moves its unrevoked grant's lastUsedAt once stale, in its workspace only", async () => {
      const g = await seedGrant();
      const bystander = await seedGrant();
      const access = makeCredential(account);
      await s.credentials.insert({ credential: access });
      await s.oauth.linkAccessCredential({ workspaceId: ws.id, grantId: g.id, credentialId: access.id });
      const use = (now: Date, workspaceId = ws.id) => s.credentials.recordUse({ workspaceId, credentialId: access.id, aiAccountId: account.id, now, staleBefore: new Date(now.getTime() - 60_000) });
      // Not stale yet (the grant was used at AT): nothing moves.
      await use(later(30_000));
      expect((await s.oauth.findGrant({ workspaceId: ws.id, grantId: g.id }))?.lastUsedAt).toEqual(AT);
      await use(later(90_000), other.id);
      expect((await s.oauth.findGrant({ workspaceId: ws.id, grantId: g.id }))?.lastUsedAt).toEqual(AT);
      await use(later(90_000));
      expect(await s.oauth.findGrant({ workspaceId: ws.id, grantId: g.id })).toEqual({ ...g, lastUsedAt: later(90_000) });
      expect(await s.oauth.findGrant({ workspaceId: ws.id, grantId: bystander.id })).toEqual(bystander);
      await s.oauth.revokeGrant({ workspaceId: ws.id, grantId: g.id, cause: "disconnected", now: later(100_000) });
      await use(later(900_000));
      expect((await s.oauth.findGrant({ workspaceId: ws.id, grantId: g.id }))?.lastUsedAt).toEqual(later(90_000));
    });

    it("revokes a grant with its cause, its refresh tokens and its active access credentials, and nothing else", async () => {
      const g = await seedGrant();
      const keep = await seedGrant();
      const linked = [makeCredential(account), makeCredential(account)];
      const gone = makeCredential(account, { state: "revoked", revokedAt: AT });
      const unrelated = makeCredential(account);
      const otherGrants = makeCredential(account);
      for (const c of [...linked, gone, unrelated, otherGrants]) await s.credentials.insert({ credential: c });
      for (const c of [...linked, gone]) await s.oauth.linkAccessCredential({ workspaceId: ws.id, grantId: g.id, credentialId: c.id });
      await s.oauth.linkAccessCredential({ workspaceId: ws.id, grantId: keep.id, credentialId: otherGrants.id });
      const spent = await seedRefresh(g, { spentAt: later(1) });
      const current = await seedRefresh(g, { generation: 2 });
      const kept = await seedRefresh(keep);
      expect(await s.oauth.grantIdOfCredential({ workspaceId: ws.id, credentialId: linked[0]!.id })).toBe(g.id);
      expect(await s.oauth.grantIdOfCredential({ workspaceId: other.id, credentialId: linked[0]!.id })).toBeNull();
      expect(await s.oauth.grantIdOfCredential({ workspaceId: ws.id, credentialId: unrelated.id })).toBeNull();

      expect(await s.oauth.revokeGrant({ workspaceId: other.id, grantId: g.id, cause: "disconnected", now: later(5) })).toEqual({ kind: "not_found" });
      const result = await s.oauth.revokeGrant({ workspaceId: ws.id, grantId: g.id, cause: "refresh_token_replayed", now: later(5) });
      const revokedGrant = { ...g, revokedAt: later(5), revokedReason: "refresh_token_replayed" };
      expect(result).toEqual({ kind: "revoked", grant: revokedGrant, credentials: [...linked].sort((a, b) => (a.id < b.id ? -1 : 1)).map((c) => ({ ...c, state: "revoked", revokedAt: later(5) })) });
      expect(await s.oauth.revokeGrant({ workspaceId: ws.id, grantId: g.id, cause: "disconnected", now: later(6) })).toEqual({ kind: "already_revoked", grant: revokedGrant });
      expect(await s.oauth.findRefreshToken({ tokenHash: spent.tokenHash })).toEqual({ ...spent, revokedAt: later(5) });
      expect(await s.oauth.findRefreshToken({ tokenHash: current.tokenHash })).toEqual({ ...current, revokedAt: later(5) });
      expect(await s.oauth.findRefreshToken({ tokenHash: kept.tokenHash })).toEqual(kept);
      expect((await s.credentials.findById({ workspaceId: ws.id, credentialId: gone.id }))?.revokedAt).toEqual(AT);
      expect((await s.credentials.findById({ workspaceId: ws.id, credentialId: unrelated.id }))?.state).toBe("active");
      expect((await s.credentials.findById({ workspaceId: ws.id, credentialId: otherGrants.id }))?.state).toBe("active");
      expect((await s.oauth.findGrant({ workspaceId: ws.id, grantId: keep.id }))?.revokedAt).toBeNull();
    });

    it("of concurrent revocations of one grant, exactly one revokes", async () => {
      const g = await seedGrant();
      const results = await Promise.all(Array.from({ length: 5 }, () => s.oauth.revokeGrant({ workspaceId: ws.id, grantId: g.id, cause: "disconnected", now: later(1) })));
      expect(results.filter((r) => r.kind === "revoked")).toHaveLength(1);
      expect(results.filter((r) => r.kind === "already_revoked")).toHaveLength(4);
    });

    it("spends the current refresh token once and forgets every generation before it", async () => {
      const g = await seedGrant();
      const first = await seedRefresh(g, { spentAt: later(1) });
      const second = await seedRefresh(g, { generation: 2 });
      const spent = await s.oauth.spendRefreshToken({ tokenHash: second.tokenHash, clientId: client.id, now: later(10) });
      expect(spent).toEqual({ kind: "spent", token: { ...second, spentAt: later(10) } });
      expect(await s.oauth.findRefreshToken({ tokenHash: first.tokenHash })).toBeNull();
      const third = await seedRefresh(g, { generation: 3 });
      expect(await s.oauth.spendRefreshToken({ tokenHash: second.tokenHash, clientId: client.id, now: later(20) })).toEqual({ kind: "refused", token: { ...second, spentAt: later(10) } });
      expect(await s.oauth.spendRefreshToken({ tokenHash: first.tokenHash, clientId: client.id, now: later(20) })).toEqual({ kind: "refused", token: null });
      expect((await s.oauth.findRefreshToken({ tokenHash: third.tokenHash }))?.spentAt).toBeNull();
    });

    it("refuses a refresh token of another client, expired or revoked, without spending it", async () => {
      const g = await seedGrant();
      const t = await seedRefresh(g);
      expect(await s.oauth.spendRefreshToken({ tokenHash: t.tokenHash, clientId: fixtureId(), now: later(1) })).toEqual({ kind: "refused", token: t });
      expect(await s.oauth.spendRefreshToken({ tokenHash: t.tokenHash, clientId: client.id, now: t.expiresAt })).toEqual({ kind: "refused", token: t });
      const r = await seedRefresh(g, { generation: 2, revokedAt: AT });
      expect(await s.oauth.spendRefreshToken({ tokenHash: r.tokenHash, clientId: client.id, now: later(1) })).toEqual({ kind: "refused", token: r });
      expect((await s.oauth.findRefreshToken({ tokenHash: t.tokenHash }))?.spentAt).toBeNull();
    });

    it("of concurrent spends of one refresh token, exactly one wins", async () => {
      const g = await seedGrant();
      const t = await seedRefresh(g);
      const results = await Promise.all(Array.from({ length: 6 }, () => s.oauth.spendRefreshToken({ tokenHash: t.tokenHash, clientId: client.id, now: later(1) })));
      expect(results.filter((r) => r.kind === "spent")).toHaveLength(1);
      expect(results.filter((r) => r.kind === "refused" && r.token?.spentAt !== null)).toHaveLength(5);
    });
  });
}
