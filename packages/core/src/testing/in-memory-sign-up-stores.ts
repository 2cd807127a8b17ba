import type { LinkedIdentity } from "../oidc/oidc-identity.ts";
import type { PendingSignUp } from "../people/pending-sign-up.ts";
import type { LinkedIdentityStore, PendingSignUpStore } from "../ports.ts";
import type { InMemoryPeopleTables } from "./in-memory-people.ts";
import type { InMemoryTransaction } from "./in-memory-transaction.ts";

// Every method reads and writes without yielding between its first and last line, so each call
// is atomic with respect to other calls, as the one conditional statement makes it in PostgreSQL.

/** In-memory PendingSignUpStore. */
export class InMemoryPendingSignUpStore implements PendingSignUpStore {
  constructor(
    private readonly tables: InMemoryPeopleTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  async insert(p: { signUp: PendingSignUp }): Promise<void> {
    this.tables.pendingSignUps.set(this.tx, p.signUp.id, { ...p.signUp });
  }

  async countSince(p: { email: string; since: Date }): Promise<number> {
    return this.tables.pendingSignUps.values().filter((x) => x.email === p.email && x.createdAt.getTime() >= p.since.getTime()).length;
  }

  async take(p: { tokenHash: string; now: Date }): Promise<PendingSignUp | null> {
    const found = this.tables.pendingSignUps.values().find((x) => x.tokenHash === p.tokenHash);
    if (found === undefined || found.expiresAt.getTime() <= p.now.getTime()) return null;
    this.tables.pendingSignUps.delete(this.tx, found.id);
    return found;
  }

  async purgeExpiredBefore(p: { before: Date }): Promise<number> {
    const old = this.tables.pendingSignUps.values().filter((x) => x.expiresAt.getTime() < p.before.getTime());
    for (const x of old) this.tables.pendingSignUps.delete(this.tx, x.id);
    return old.length;
  }
}

/** In-memory LinkedIdentityStore. */
export class InMemoryLinkedIdentityStore implements LinkedIdentityStore {
  constructor(
    private readonly tables: InMemoryPeopleTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  async link(p: { identity: LinkedIdentity }): Promise<{ kind: "linked" } | { kind: "already_linked"; identity: LinkedIdentity }> {
    const existing = this.find(p.identity.issuer, p.identity.subject);
    if (existing !== null) return { kind: "already_linked", identity: existing };
    this.tables.identities.set(this.tx, p.identity.id, { ...p.identity });
    return { kind: "linked" };
  }

  async findBySubject(p: { issuer: string; subject: string }): Promise<LinkedIdentity | null> {
    return this.find(p.issuer, p.subject);
  }

  async listOfPerson(p: { workspaceId: string; personId: string }): Promise<LinkedIdentity[]> {
    return this.tables.identities
      .values()
      .filter((x) => x.workspaceId === p.workspaceId && x.personId === p.personId)
      .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  private find(issuer: string, subject: string): LinkedIdentity | null {
    return this.tables.identities.values().find((x) => x.issuer === issuer && x.subject === subject) ?? null;
  }
}
