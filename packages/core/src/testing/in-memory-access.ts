import type { AiAccount, AiAccountState, Credential, Person, Workspace, WorkspaceState } from "../access/model.ts";
import type { AccountStore, CredentialStore, WorkspaceStore } from "../ports.ts";
import { InMemoryTable, type InMemoryTransaction } from "./in-memory-transaction.ts";

/**
 * The rows behind the in-memory access stores. One instance is shared by every store bound to
 * it, whether bound to a transaction or not; writes made through a store bound to a
 * transaction are undone when it rolls back.
 */
export class InMemoryAccessTables {
  readonly workspaces = new InMemoryTable<Workspace>();
  /** People, keyed by person id. */
  readonly people = new InMemoryTable<Person>();
  /** The owner person's id, keyed by workspace id. */
  readonly ownerIds = new InMemoryTable<string>();
  readonly accounts = new InMemoryTable<AiAccount>();
  readonly credentials = new InMemoryTable<Credential>();
}

const byIdAsc = (a: { id: string }, b: { id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0);

// Every method below reads and writes synchronously between its first and last line, so each
// call is atomic with respect to other calls, as a single statement is in PostgreSQL.

/** In-memory WorkspaceStore: workspaces and their owner people. */
export class InMemoryWorkspaceStore implements WorkspaceStore {
  constructor(
    private readonly tables: InMemoryAccessTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  async create(p: { workspace: Workspace; owner: Person }): Promise<{ kind: "created" } | { kind: "email_taken" }> {
    if (this.tables.people.values().some((o) => o.email === p.owner.email)) return { kind: "email_taken" };
    this.tables.workspaces.set(this.tx, p.workspace.id, p.workspace);
    this.tables.people.set(this.tx, p.owner.id, p.owner);
    this.tables.ownerIds.set(this.tx, p.workspace.id, p.owner.id);
    return { kind: "created" };
  }

  async findById(p: { workspaceId: string }): Promise<Workspace | null> {
    return this.tables.workspaces.get(p.workspaceId) ?? null;
  }

  async setState(p: { workspaceId: string; state: WorkspaceState }): Promise<Workspace | null> {
    const w = this.tables.workspaces.get(p.workspaceId);
    if (!w) return null;
    const next = { ...w, state: p.state };
    this.tables.workspaces.set(this.tx, w.id, next);
    return next;
  }

  async findOwner(p: { workspaceId: string }): Promise<Person | null> {
    const ownerId = this.tables.ownerIds.get(p.workspaceId);
    return ownerId === undefined ? null : (this.tables.people.get(ownerId) ?? null);
  }
}

/** In-memory AccountStore. */
export class InMemoryAccountStore implements AccountStore {
  constructor(
    private readonly tables: InMemoryAccessTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  private nameTaken(workspaceId: string, friendlyName: string, exceptId: string | null): boolean {
    return this.tables.accounts.values().some((a) => a.workspaceId === workspaceId && a.friendlyName === friendlyName && a.state !== "revoked" && a.id !== exceptId);
  }

  private scoped(workspaceId: string, accountId: string): AiAccount | undefined {
    const a = this.tables.accounts.get(accountId);
    return a && a.workspaceId === workspaceId ? a : undefined;
  }

  async create(p: { account: AiAccount }): Promise<{ kind: "created" } | { kind: "name_taken" }> {
    if (p.account.state !== "revoked" && this.nameTaken(p.account.workspaceId, p.account.friendlyName, null)) return { kind: "name_taken" };
    this.tables.accounts.set(this.tx, p.account.id, p.account);
    return { kind: "created" };
  }

  async findById(p: { workspaceId: string; accountId: string }): Promise<AiAccount | null> {
    return this.scoped(p.workspaceId, p.accountId) ?? null;
  }

  async findAddressable(p: { workspaceId: string; friendlyName: string }): Promise<AiAccount | null> {
    return this.tables.accounts.values().find((a) => a.workspaceId === p.workspaceId && a.friendlyName === p.friendlyName && a.state !== "revoked") ?? null;
  }

  async list(p: { workspaceId: string; states: readonly AiAccountState[] | null; after: string | null; limit: number }): Promise<AiAccount[]> {
    const { after, states } = p;
    return this.tables.accounts
      .values()
      .filter((a) => a.workspaceId === p.workspaceId && (states === null || states.includes(a.state)) && (after === null || a.id > after))
      .sort(byIdAsc)
      .slice(0, p.limit + 1);
  }

  async rename(p: { workspaceId: string; accountId: string; friendlyName: string; now: Date }): Promise<{ kind: "renamed"; account: AiAccount } | { kind: "name_taken" } | { kind: "not_found" }> {
    const a = this.scoped(p.workspaceId, p.accountId);
    if (!a || a.state === "revoked") return { kind: "not_found" };
    if (this.nameTaken(p.workspaceId, p.friendlyName, a.id)) return { kind: "name_taken" };
    const next = { ...a, friendlyName: p.friendlyName, updatedAt: p.now };
    this.tables.accounts.set(this.tx, a.id, next);
    return { kind: "renamed", account: next };
  }

  async transition(p: { workspaceId: string; accountId: string; from: readonly AiAccountState[]; to: AiAccountState; now: Date }): Promise<{ kind: "moved"; account: AiAccount } | { kind: "wrong_state"; account: AiAccount } | { kind: "not_found" }> {
    const a = this.scoped(p.workspaceId, p.accountId);
    if (!a) return { kind: "not_found" };
    if (!p.from.includes(a.state)) return { kind: "wrong_state", account: a };
    const next = { ...a, state: p.to, updatedAt: p.now };
    this.tables.accounts.set(this.tx, a.id, next);
    return { kind: "moved", account: next };
  }

  async loadPrincipalContext(p: { accountId: string }): Promise<{ account: AiAccount; workspace: Workspace } | null> {
    const account = this.tables.accounts.get(p.accountId);
    if (!account) return null;
    const workspace = this.tables.workspaces.get(account.workspaceId);
    return workspace ? { account, workspace } : null;
  }
}

/** The OAuth grants an access credential belongs to, as the in-memory OAuth tables keep them (for `recordUse`). */
export interface InMemoryGrantUses {
  /** Moves the grant of `credentialId` (if any) to `now` where its lastUsedAt is before `staleBefore`. */
  touchGrantOf(tx: InMemoryTransaction | null, p: { workspaceId: string; credentialId: string; now: Date; staleBefore: Date }): void;
}

/** In-memory CredentialStore. */
export class InMemoryCredentialStore implements CredentialStore {
  constructor(
    private readonly tables: InMemoryAccessTables,
    private readonly tx: InMemoryTransaction | null = null,
    private readonly grants: InMemoryGrantUses | null = null,
  ) {}

  private scoped(workspaceId: string, credentialId: string): Credential | undefined {
    const c = this.tables.credentials.get(credentialId);
    return c && c.workspaceId === workspaceId ? c : undefined;
  }

  async insert(p: { credential: Credential }): Promise<void> {
    if (this.tables.credentials.has(p.credential.id)) throw new Error(`credential ${p.credential.id} already exists`);
    this.tables.credentials.set(this.tx, p.credential.id, p.credential);
  }

  async findByTokenHash(p: { tokenHash: string }): Promise<Credential | null> {
    return this.tables.credentials.values().find((c) => c.tokenHash === p.tokenHash) ?? null;
  }

  async findById(p: { workspaceId: string; credentialId: string }): Promise<Credential | null> {
    return this.scoped(p.workspaceId, p.credentialId) ?? null;
  }

  async list(p: { workspaceId: string; aiAccountId: string | null; after: string | null; limit: number }): Promise<Credential[]> {
    const { after, aiAccountId } = p;
    return this.tables.credentials
      .values()
      .filter((c) => c.workspaceId === p.workspaceId && (aiAccountId === null || c.aiAccountId === aiAccountId) && (after === null || c.id < after))
      .sort((a, b) => byIdAsc(b, a))
      .slice(0, p.limit + 1);
  }

  async revoke(p: { workspaceId: string; credentialId: string; now: Date }): Promise<{ kind: "revoked"; credential: Credential } | { kind: "already_revoked" } | { kind: "not_found" }> {
    const c = this.scoped(p.workspaceId, p.credentialId);
    if (!c) return { kind: "not_found" };
    if (c.state === "revoked") return { kind: "already_revoked" };
    const next: Credential = { ...c, state: "revoked", revokedAt: p.now };
    this.tables.credentials.set(this.tx, c.id, next);
    return { kind: "revoked", credential: next };
  }

  async revokeAllForAccount(p: { workspaceId: string; aiAccountId: string; now: Date }): Promise<Credential[]> {
    const targets = this.tables.credentials
      .values()
      .filter((c) => c.workspaceId === p.workspaceId && c.aiAccountId === p.aiAccountId && c.state === "active")
      .sort(byIdAsc);
    return targets.map((c) => {
      const next: Credential = { ...c, state: "revoked", revokedAt: p.now };
      this.tables.credentials.set(this.tx, c.id, next);
      return next;
    });
  }

  async markRotated(p: { workspaceId: string; credentialId: string; successorId: string; overlapEndsAt: Date }): Promise<{ kind: "rotated"; credential: Credential } | { kind: "conflict" } | { kind: "not_found" }> {
    const c = this.scoped(p.workspaceId, p.credentialId);
    if (!c) return { kind: "not_found" };
    if (c.state !== "active" || c.rotatedToId !== null) return { kind: "conflict" };
    const expiresAt = c.expiresAt !== null && c.expiresAt.getTime() < p.overlapEndsAt.getTime() ? c.expiresAt : p.overlapEndsAt;
    const next: Credential = { ...c, rotatedToId: p.successorId, expiresAt };
    this.tables.credentials.set(this.tx, c.id, next);
    return { kind: "rotated", credential: next };
  }

  async recordUse(p: { workspaceId: string; credentialId: string; aiAccountId: string; now: Date; staleBefore: Date }): Promise<void> {
    const stale = (at: Date | null) => at === null || at.getTime() < p.staleBefore.getTime();
    const c = this.scoped(p.workspaceId, p.credentialId);
    if (c && stale(c.lastUsedAt)) this.tables.credentials.set(this.tx, c.id, { ...c, lastUsedAt: p.now });
    const a = this.tables.accounts.get(p.aiAccountId);
    if (a && a.workspaceId === p.workspaceId && stale(a.lastActiveAt)) this.tables.accounts.set(this.tx, a.id, { ...a, lastActiveAt: p.now });
    this.grants?.touchGrantOf(this.tx, p);
  }
}

/** The three in-memory access stores, bound to the same tables and transaction. */
export interface InMemoryAccessStores {
  workspaces: InMemoryWorkspaceStore;
  accounts: InMemoryAccountStore;
  credentials: InMemoryCredentialStore;
}

/**
 * Binds the three access stores to `tables` and `tx` (null: autocommit). The in-memory
 * transaction runner calls this with each new transaction.
 */
export function bindInMemoryAccessStores(tables: InMemoryAccessTables, tx: InMemoryTransaction | null = null, grants: InMemoryGrantUses | null = null): InMemoryAccessStores {
  return { workspaces: new InMemoryWorkspaceStore(tables, tx), accounts: new InMemoryAccountStore(tables, tx), credentials: new InMemoryCredentialStore(tables, tx, grants) };
}
