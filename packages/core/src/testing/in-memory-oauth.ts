import type { Credential } from "../access/model.ts";
import type { AuthorizationCode, GrantRevocationCause, OAuthClient, OAuthGrant, RefreshTokenRecord } from "../oauth/model.ts";
import type { OAuthStore } from "../ports.ts";
import type { InMemoryAccessTables } from "./in-memory-access.ts";
import { InMemoryTable, type InMemoryTransaction } from "./in-memory-transaction.ts";

/** A grant's access credential (the link row). */
interface GrantCredentialLink {
  workspaceId: string;
  grantId: string;
  credentialId: string;
}

/** The rows behind the in-memory OAuth store. */
export class InMemoryOAuthTables {
  readonly clients = new InMemoryTable<OAuthClient>();
  readonly codes = new InMemoryTable<AuthorizationCode>();
  readonly grants = new InMemoryTable<OAuthGrant>();
  /** Keyed by credential id. */
  readonly grantCredentials = new InMemoryTable<GrantCredentialLink>();
  readonly refreshTokens = new InMemoryTable<RefreshTokenRecord>();

  /** The grant side of CredentialStore.recordUse: an access credential's use moves its grant's lastUsedAt. */
  touchGrantOf(tx: InMemoryTransaction | null, p: { workspaceId: string; credentialId: string; now: Date; staleBefore: Date }): void {
    const link = this.grantCredentials.get(p.credentialId);
    if (link === undefined || link.workspaceId !== p.workspaceId) return;
    const g = this.grants.get(link.grantId);
    if (g === undefined || g.workspaceId !== p.workspaceId || g.revokedAt !== null || g.lastUsedAt.getTime() >= p.staleBefore.getTime()) return;
    this.grants.set(tx, g.id, { ...g, lastUsedAt: p.now });
  }
}

const byIdDesc = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0);

// Every method reads and writes synchronously between its first and last line, so each call is
// atomic with respect to the others, as one statement is in PostgreSQL.

/** In-memory OAuthStore; revoking a grant revokes credentials in the shared access tables. */
export class InMemoryOAuthStore implements OAuthStore {
  constructor(
    private readonly tables: InMemoryOAuthTables,
    private readonly access: InMemoryAccessTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  private scopedGrant(workspaceId: string, grantId: string): OAuthGrant | undefined {
    const g = this.tables.grants.get(grantId);
    return g && g.workspaceId === workspaceId ? g : undefined;
  }

  async insertClient(p: { client: OAuthClient }): Promise<void> {
    if (this.tables.clients.has(p.client.id)) throw new Error(`client ${p.client.id} already exists`);
    this.tables.clients.set(this.tx, p.client.id, p.client);
  }

  async findClient(p: { clientId: string }): Promise<OAuthClient | null> {
    return this.tables.clients.get(p.clientId) ?? null;
  }

  async touchClient(p: { clientId: string; now: Date }): Promise<void> {
    const c = this.tables.clients.get(p.clientId);
    if (c) this.tables.clients.set(this.tx, c.id, { ...c, lastUsedAt: p.now });
  }

  async deleteIdleClients(p: { unusedBefore: Date; idleBefore: Date; limit: number }): Promise<number> {
    const idle = this.tables.clients
      .values()
      .filter((c) => (c.lastUsedAt === null ? c.createdAt.getTime() < p.unusedBefore.getTime() : c.lastUsedAt.getTime() < p.idleBefore.getTime()))
      .slice(0, p.limit);
    for (const c of idle) this.tables.clients.delete(this.tx, c.id);
    return idle.length;
  }

  async insertCode(p: { code: AuthorizationCode }): Promise<void> {
    if (this.tables.codes.has(p.code.id) || this.tables.codes.values().some((c) => c.codeHash === p.code.codeHash)) throw new Error(`code ${p.code.id} already exists`);
    this.tables.codes.set(this.tx, p.code.id, p.code);
  }

  async consumeCode(p: { codeHash: string; now: Date }): Promise<{ kind: "consumed"; code: AuthorizationCode } | { kind: "already_consumed"; code: AuthorizationCode } | { kind: "not_found" }> {
    const code = this.tables.codes.values().find((c) => c.codeHash === p.codeHash);
    if (!code) return { kind: "not_found" };
    if (code.consumedAt !== null) return { kind: "already_consumed", code };
    const next = { ...code, consumedAt: p.now };
    this.tables.codes.set(this.tx, code.id, next);
    return { kind: "consumed", code: next };
  }

  async setCodeGrant(p: { workspaceId: string; codeId: string; grantId: string }): Promise<void> {
    const code = this.tables.codes.get(p.codeId);
    if (code && code.workspaceId === p.workspaceId) this.tables.codes.set(this.tx, code.id, { ...code, grantId: p.grantId });
  }

  async purgeCodes(p: { before: Date; limit: number }): Promise<number> {
    const old = this.tables.codes
      .values()
      .filter((c) => c.expiresAt.getTime() < p.before.getTime())
      .slice(0, p.limit);
    for (const c of old) this.tables.codes.delete(this.tx, c.id);
    return old.length;
  }

  async insertGrant(p: { grant: OAuthGrant }): Promise<void> {
    if (this.tables.grants.has(p.grant.id)) throw new Error(`grant ${p.grant.id} already exists`);
    this.tables.grants.set(this.tx, p.grant.id, p.grant);
  }

  async findGrant(p: { workspaceId: string; grantId: string }): Promise<OAuthGrant | null> {
    return this.scopedGrant(p.workspaceId, p.grantId) ?? null;
  }

  async listGrants(p: { workspaceId: string; after: string | null; limit: number }): Promise<OAuthGrant[]> {
    const { after } = p;
    return this.tables.grants
      .values()
      .filter((g) => g.workspaceId === p.workspaceId && (after === null || g.id < after))
      .sort(byIdDesc)
      .slice(0, p.limit + 1);
  }

  async latestGrantForClient(p: { workspaceId: string; clientId: string }): Promise<OAuthGrant | null> {
    return (
      this.tables.grants
        .values()
        .filter((g) => g.workspaceId === p.workspaceId && g.clientId === p.clientId)
        .sort(byIdDesc)[0] ?? null
    );
  }

  async recordGrantUse(p: { workspaceId: string; grantId: string; now: Date; refreshExpiresAt: Date }): Promise<void> {
    const g = this.scopedGrant(p.workspaceId, p.grantId);
    if (g && g.revokedAt === null) this.tables.grants.set(this.tx, g.id, { ...g, lastUsedAt: p.now, refreshExpiresAt: p.refreshExpiresAt });
  }

  async revokeGrant(p: { workspaceId: string; grantId: string; cause: GrantRevocationCause; now: Date }): Promise<{ kind: "revoked"; grant: OAuthGrant; credentials: Credential[] } | { kind: "already_revoked"; grant: OAuthGrant } | { kind: "not_found" }> {
    const g = this.scopedGrant(p.workspaceId, p.grantId);
    if (!g) return { kind: "not_found" };
    if (g.revokedAt !== null) return { kind: "already_revoked", grant: g };
    const grant: OAuthGrant = { ...g, revokedAt: p.now, revokedReason: p.cause };
    this.tables.grants.set(this.tx, g.id, grant);
    for (const t of this.tables.refreshTokens.values()) {
      if (t.workspaceId === p.workspaceId && t.grantId === g.id && t.revokedAt === null) this.tables.refreshTokens.set(this.tx, t.id, { ...t, revokedAt: p.now });
    }
    const credentials: Credential[] = [];
    for (const link of this.tables.grantCredentials.values()) {
      if (link.workspaceId !== p.workspaceId || link.grantId !== g.id) continue;
      const c = this.access.credentials.get(link.credentialId);
      if (!c || c.state !== "active") continue;
      const revoked: Credential = { ...c, state: "revoked", revokedAt: p.now };
      this.access.credentials.set(this.tx, c.id, revoked);
      credentials.push(revoked);
    }
    credentials.sort((a, b) => (a.id < b.id ? -1 : 1));
    return { kind: "revoked", grant, credentials };
  }

  async linkAccessCredential(p: { workspaceId: string; grantId: string; credentialId: string }): Promise<void> {
    this.tables.grantCredentials.set(this.tx, p.credentialId, { workspaceId: p.workspaceId, grantId: p.grantId, credentialId: p.credentialId });
  }

  async grantIdOfCredential(p: { workspaceId: string; credentialId: string }): Promise<string | null> {
    const link = this.tables.grantCredentials.get(p.credentialId);
    return link && link.workspaceId === p.workspaceId ? link.grantId : null;
  }

  async insertRefreshToken(p: { token: RefreshTokenRecord }): Promise<void> {
    if (this.tables.refreshTokens.has(p.token.id) || this.tables.refreshTokens.values().some((t) => t.tokenHash === p.token.tokenHash)) throw new Error(`refresh token ${p.token.id} already exists`);
    this.tables.refreshTokens.set(this.tx, p.token.id, p.token);
  }

  async spendRefreshToken(p: { tokenHash: string; clientId: string; now: Date }): Promise<{ kind: "spent"; token: RefreshTokenRecord } | { kind: "refused"; token: RefreshTokenRecord | null }> {
    const t = this.tables.refreshTokens.values().find((r) => r.tokenHash === p.tokenHash);
    if (!t) return { kind: "refused", token: null };
    if (t.clientId !== p.clientId || t.spentAt !== null || t.revokedAt !== null || t.expiresAt.getTime() <= p.now.getTime()) return { kind: "refused", token: t };
    const spent = { ...t, spentAt: p.now };
    this.tables.refreshTokens.set(this.tx, t.id, spent);
    for (const older of this.tables.refreshTokens.values()) {
      if (older.workspaceId === t.workspaceId && older.grantId === t.grantId && older.generation < t.generation) this.tables.refreshTokens.delete(this.tx, older.id);
    }
    return { kind: "spent", token: spent };
  }

  async findRefreshToken(p: { tokenHash: string }): Promise<RefreshTokenRecord | null> {
    return this.tables.refreshTokens.values().find((t) => t.tokenHash === p.tokenHash) ?? null;
  }
}
