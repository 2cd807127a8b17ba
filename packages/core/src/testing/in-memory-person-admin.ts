import type { Person, Role, Workspace } from "../access/model.ts";
import type { PersonToken, PersonTokenPurpose } from "../people/person-tokens.ts";
import type { PersonTokenStore, WorkspaceLifecycleStore, WorkspacePeopleStore } from "../ports.ts";
import type { InMemoryMessagingTables } from "./in-memory-messaging-tables.ts";
import type { InMemoryAccessTables } from "./in-memory-access.ts";
import type { InMemoryPeopleTables } from "./in-memory-people.ts";
import { InMemoryTable, type InMemoryTransaction } from "./in-memory-transaction.ts";

/** Rows of the in-memory person token store. */
export class InMemoryPersonTokenTables {
  readonly tokens = new InMemoryTable<PersonToken>();
}

/** In-memory PersonTokenStore. */
export class InMemoryPersonTokenStore implements PersonTokenStore {
  constructor(
    private readonly tables: InMemoryPersonTokenTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  async insert(p: { token: PersonToken }): Promise<void> {
    this.tables.tokens.set(this.tx, p.token.id, p.token);
  }

  async findByHash(p: { tokenHash: string }): Promise<PersonToken | null> {
    return this.tables.tokens.values().find((t) => t.tokenHash === p.tokenHash) ?? null;
  }

  async spend(p: { tokenHash: string; now: Date }): Promise<{ kind: "spent"; token: PersonToken } | { kind: "unusable" }> {
    const t = this.tables.tokens.values().find((x) => x.tokenHash === p.tokenHash) ?? null;
    if (t === null || t.usedAt !== null || t.expiresAt.getTime() <= p.now.getTime()) return { kind: "unusable" };
    const token = { ...t, usedAt: p.now };
    this.tables.tokens.set(this.tx, t.id, token);
    return { kind: "spent", token };
  }

  async countIssuedSince(p: { workspaceId: string; personId: string; purpose: PersonTokenPurpose; since: Date }): Promise<number> {
    return this.tables.tokens.values().filter((t) => t.workspaceId === p.workspaceId && t.personId === p.personId && t.purpose === p.purpose && t.createdAt.getTime() >= p.since.getTime()).length;
  }

  async spendAllOfPerson(p: { workspaceId: string; personId: string; now: Date }): Promise<number> {
    const live = this.tables.tokens.values().filter((t) => t.workspaceId === p.workspaceId && t.personId === p.personId && t.usedAt === null);
    for (const t of live) this.tables.tokens.set(this.tx, t.id, { ...t, usedAt: p.now });
    return live.length;
  }

  async purgeExpiredBefore(p: { before: Date }): Promise<number> {
    const old = this.tables.tokens.values().filter((t) => t.expiresAt.getTime() < p.before.getTime());
    for (const t of old) this.tables.tokens.delete(this.tx, t.id);
    return old.length;
  }
}

/** In-memory WorkspacePeopleStore over the access tables' people (the in-memory TxRunner serializes, so the last-owner check cannot race). */
export class InMemoryWorkspacePeopleStore implements WorkspacePeopleStore {
  constructor(
    private readonly tables: { access: InMemoryAccessTables; people: InMemoryPeopleTables; tokens: InMemoryPersonTokenTables },
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  // Every method reads and writes without yielding between its first and last line, so each
  // call is atomic with respect to other calls, as the workspace lock makes it in PostgreSQL.

  private peopleOf(workspaceId: string): Person[] {
    return this.tables.access.people
      .values()
      .filter((x) => x.workspaceId === workspaceId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  async list(p: { workspaceId: string }): Promise<Person[]> {
    return this.peopleOf(p.workspaceId);
  }

  async count(p: { workspaceId: string }): Promise<number> {
    return this.peopleOf(p.workspaceId).length;
  }

  private find(workspaceId: string, personId: string): Person | null {
    const x = this.tables.access.people.get(personId);
    return x && x.workspaceId === workspaceId ? x : null;
  }

  private onlyOwner(person: Person): boolean {
    return person.role === "owner" && this.peopleOf(person.workspaceId).filter((x) => x.role === "owner").length === 1;
  }

  /** Keeps the workspace's recorded owner (WorkspaceStore.findOwner) an owner: the oldest remaining one. */
  private reassignOwner(workspaceId: string, personId: string): void {
    if (this.tables.access.ownerIds.get(workspaceId) !== personId) return;
    const next = this.peopleOf(workspaceId).find((x) => x.role === "owner" && x.id !== personId);
    if (next !== undefined) this.tables.access.ownerIds.set(this.tx, workspaceId, next.id);
  }

  async setRole(p: { workspaceId: string; personId: string; role: Role }): Promise<{ kind: "changed"; before: Person; person: Person } | { kind: "last_owner" } | { kind: "not_found" }> {
    const before = this.find(p.workspaceId, p.personId);
    if (before === null) return { kind: "not_found" };
    if (p.role !== "owner" && this.onlyOwner(before)) return { kind: "last_owner" };
    const person = { ...before, role: p.role };
    this.tables.access.people.set(this.tx, person.id, person);
    if (p.role !== "owner") this.reassignOwner(p.workspaceId, person.id);
    return { kind: "changed", before, person };
  }

  async remove(p: { workspaceId: string; personId: string }): Promise<{ kind: "removed"; person: Person } | { kind: "last_owner" } | { kind: "not_found" }> {
    const person = this.find(p.workspaceId, p.personId);
    if (person === null) return { kind: "not_found" };
    if (this.onlyOwner(person)) return { kind: "last_owner" };
    this.reassignOwner(p.workspaceId, person.id);
    this.deletePerson(person);
    return { kind: "removed", person };
  }

  async erase(p: { workspaceId: string; personId: string }): Promise<{ kind: "erased"; person: Person; wasLastOwner: boolean } | { kind: "not_found" }> {
    const person = this.find(p.workspaceId, p.personId);
    if (person === null) return { kind: "not_found" };
    const wasLastOwner = this.onlyOwner(person);
    this.reassignOwner(p.workspaceId, person.id);
    this.deletePerson(person);
    return { kind: "erased", person, wasLastOwner };
  }

  private deletePerson(person: Person): void {
    this.tables.access.people.delete(this.tx, person.id);
    for (const s of this.tables.people.sessions.values().filter((s) => s.workspaceId === person.workspaceId && s.personId === person.id)) this.tables.people.sessions.delete(this.tx, s.id);
    for (const t of this.tables.tokens.tokens.values().filter((t) => t.workspaceId === person.workspaceId && t.personId === person.id)) this.tables.tokens.tokens.delete(this.tx, t.id);
    for (const c of this.tables.people.recoveryCodes.values().filter((c) => c.personId === person.id)) this.tables.people.recoveryCodes.delete(this.tx, c.key);
    if (this.tables.people.mfa.has(person.id)) this.tables.people.mfa.delete(this.tx, person.id);
    for (const i of this.tables.people.identities.values().filter((i) => i.workspaceId === person.workspaceId && i.personId === person.id)) this.tables.people.identities.delete(this.tx, i.id);
  }
}

/** In-memory WorkspaceLifecycleStore over the access and messaging tables. */
export class InMemoryWorkspaceLifecycleStore implements WorkspaceLifecycleStore {
  constructor(
    private readonly tables: { access: InMemoryAccessTables; messaging: InMemoryMessagingTables; payloadsDeleted: InMemoryTable<Date> },
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  private revokeAll(workspaceId: string, now: Date): { accountIds: string[]; credentialIds: string[] } {
    const accounts = this.tables.access.accounts.values().filter((a) => a.workspaceId === workspaceId && a.state !== "revoked");
    for (const a of accounts) this.tables.access.accounts.set(this.tx, a.id, { ...a, state: "revoked", updatedAt: now });
    const credentials = this.tables.access.credentials.values().filter((c) => c.workspaceId === workspaceId && c.state === "active");
    for (const c of credentials) this.tables.access.credentials.set(this.tx, c.id, { ...c, state: "revoked", revokedAt: now });
    return { accountIds: accounts.map((a) => a.id), credentialIds: credentials.map((c) => c.id) };
  }

  async close(p: { workspaceId: string; now: Date }): Promise<{ kind: "closed"; workspace: Workspace; accountIds: string[]; credentialIds: string[] } | { kind: "already_closed"; workspace: Workspace } | { kind: "not_found" }> {
    const w = this.tables.access.workspaces.get(p.workspaceId);
    if (w === undefined) return { kind: "not_found" };
    if (w.state === "closed") return { kind: "already_closed", workspace: w };
    const workspace: Workspace = { ...w, state: "closed", closedAt: p.now };
    this.tables.access.workspaces.set(this.tx, w.id, workspace);
    return { kind: "closed", workspace, ...this.revokeAll(w.id, p.now) };
  }

  async freezeAndRevoke(p: { workspaceId: string; now: Date }): Promise<{ workspace: Workspace; accountIds: string[]; credentialIds: string[] } | null> {
    const w = this.tables.access.workspaces.get(p.workspaceId);
    if (w === undefined) return null;
    const workspace: Workspace = w.state === "closed" ? w : { ...w, state: "frozen" };
    this.tables.access.workspaces.set(this.tx, w.id, workspace);
    return { workspace, ...this.revokeAll(w.id, p.now) };
  }

  async dueForPayloadDeletion(p: { closedBefore: Date; limit: number }): Promise<string[]> {
    return this.tables.access.workspaces
      .values()
      .filter((w) => w.state === "closed" && w.closedAt != null && w.closedAt.getTime() <= p.closedBefore.getTime() && !this.tables.payloadsDeleted.has(w.id))
      .sort((a, b) => (a.closedAt?.getTime() ?? 0) - (b.closedAt?.getTime() ?? 0))
      .slice(0, p.limit)
      .map((w) => w.id);
  }

  async deletePayloads(p: { workspaceId: string; now: Date; limit: number }): Promise<{ deleted: number; done: boolean }> {
    const batch = this.tables.messaging.messages.values().filter((m) => m.workspaceId === p.workspaceId && m.payload !== null).slice(0, p.limit);
    for (const m of batch) this.tables.messaging.messages.set(this.tx, m.id, { ...m, payload: null });
    if (batch.length > 0) return { deleted: batch.length, done: false };
    this.tables.payloadsDeleted.set(this.tx, p.workspaceId, p.now);
    return { deleted: 0, done: true };
  }
}
