import type { Person, PersonSession, Workspace } from "../access/model.ts";
import type { LinkedIdentity } from "../oidc/oidc-identity.ts";
import type { PendingSignUp } from "../people/pending-sign-up.ts";
import type { PersonMfa, PersonSessionStore, PersonStore, SignInThrottleStore, ThrottleWindowCount } from "../ports.ts";
import type { InMemoryAccessTables } from "./in-memory-access.ts";
import { InMemoryTable, type InMemoryTransaction } from "./in-memory-transaction.ts";

/** Rows behind the in-memory session and throttle stores (people live in InMemoryAccessTables). */
export class InMemoryPeopleTables {
  readonly sessions = new InMemoryTable<PersonSession>();
  readonly mfa = new InMemoryTable<PersonMfa>();
  readonly recoveryCodes = new InMemoryTable<{ key: string; personId: string; codeHash: string; usedAt: Date | null }>();
  /** Sign-in attempts holding their place in the throttle windows (failures, and attempts being checked). */
  readonly failures = new InMemoryTable<{ id: string; emailKey: string; addressKey: string; at: Date }>();
  /** Pending sign-ups by id (DESIGN §2c). */
  readonly pendingSignUps = new InMemoryTable<PendingSignUp>();
  /** Linked OIDC identities by id. */
  readonly identities = new InMemoryTable<LinkedIdentity>();
}

/** In-memory PersonStore over the access tables' people. */
export class InMemoryPersonStore implements PersonStore {
  constructor(
    private readonly access: InMemoryAccessTables,
    private readonly tx: InMemoryTransaction | null = null,
    private readonly people: InMemoryPeopleTables = new InMemoryPeopleTables(),
  ) {}

  async loadMfa(p: { workspaceId: string; personId: string }): Promise<PersonMfa | null> {
    if ((await this.findById(p)) === null) return null;
    return this.people.mfa.get(p.personId) ?? { totpSecretSealed: null, totpPendingSealed: null, totpLastStep: null };
  }

  async setPendingTotp(p: { workspaceId: string; personId: string; sealed: string }): Promise<void> {
    const mfa = await this.loadMfa(p);
    if (mfa) this.people.mfa.set(this.tx, p.personId, { ...mfa, totpPendingSealed: p.sealed });
  }

  async confirmTotp(p: { workspaceId: string; personId: string; step: number; now: Date; recoveryCodeHashes: readonly string[] }): Promise<boolean> {
    const person = await this.findById(p);
    const mfa = await this.loadMfa(p);
    if (!person || !mfa || person.mfaEnabledAt !== null || mfa.totpPendingSealed === null) return false;
    this.access.people.set(this.tx, person.id, { ...person, mfaEnabledAt: p.now });
    this.people.mfa.set(this.tx, person.id, { totpSecretSealed: mfa.totpPendingSealed, totpPendingSealed: null, totpLastStep: p.step });
    for (const r of this.people.recoveryCodes.values()) if (r.personId === person.id) this.people.recoveryCodes.delete(this.tx, r.key);
    for (const codeHash of p.recoveryCodeHashes) this.people.recoveryCodes.set(this.tx, `${person.id}:${codeHash}`, { key: `${person.id}:${codeHash}`, personId: person.id, codeHash, usedAt: null });
    return true;
  }

  async disableTotp(p: { workspaceId: string; personId: string }): Promise<boolean> {
    const person = await this.findById(p);
    if (!person || person.mfaEnabledAt === null) return false;
    this.access.people.set(this.tx, person.id, { ...person, mfaEnabledAt: null });
    this.people.mfa.set(this.tx, person.id, { totpSecretSealed: null, totpPendingSealed: null, totpLastStep: null });
    for (const r of this.people.recoveryCodes.values()) if (r.personId === person.id) this.people.recoveryCodes.delete(this.tx, r.key);
    return true;
  }

  async replaceRecoveryCodes(p: { workspaceId: string; personId: string; now: Date; recoveryCodeHashes: readonly string[] }): Promise<boolean> {
    const person = await this.findById(p);
    if (!person || person.mfaEnabledAt === null) return false;
    for (const r of this.people.recoveryCodes.values()) if (r.personId === person.id) this.people.recoveryCodes.delete(this.tx, r.key);
    for (const codeHash of p.recoveryCodeHashes) this.people.recoveryCodes.set(this.tx, `${person.id}:${codeHash}`, { key: `${person.id}:${codeHash}`, personId: person.id, codeHash, usedAt: null });
    return true;
  }

  async useTotpStep(p: { workspaceId: string; personId: string; step: number }): Promise<boolean> {
    const mfa = await this.loadMfa(p);
    if (!mfa || mfa.totpSecretSealed === null || (mfa.totpLastStep !== null && mfa.totpLastStep >= p.step)) return false;
    this.people.mfa.set(this.tx, p.personId, { ...mfa, totpLastStep: p.step });
    return true;
  }

  async useRecoveryCode(p: { workspaceId: string; personId: string; codeHash: string; now: Date }): Promise<boolean> {
    if ((await this.findById(p)) === null) return false;
    const key = `${p.personId}:${p.codeHash}`;
    const r = this.people.recoveryCodes.get(key);
    if (!r || r.usedAt !== null) return false;
    this.people.recoveryCodes.set(this.tx, key, { ...r, usedAt: p.now });
    return true;
  }

  async countRecoveryCodes(p: { workspaceId: string; personId: string }): Promise<number> {
    if ((await this.findById(p)) === null) return 0;
    return this.people.recoveryCodes.values().filter((r) => r.personId === p.personId && r.usedAt === null).length;
  }

  async insert(p: { person: Person }): Promise<{ kind: "created" } | { kind: "email_taken" }> {
    if (this.access.people.values().some((x) => x.email === p.person.email)) return { kind: "email_taken" };
    this.access.people.set(this.tx, p.person.id, p.person);
    return { kind: "created" };
  }

  async findByEmail(p: { email: string }): Promise<Person | null> {
    return this.access.people.values().find((x) => x.email === p.email) ?? null;
  }

  async findById(p: { workspaceId: string; personId: string }): Promise<Person | null> {
    const x = this.access.people.get(p.personId);
    return x && x.workspaceId === p.workspaceId ? x : null;
  }

  async loadSessionContext(p: { workspaceId: string; personId: string }): Promise<{ person: Person; workspace: Workspace } | null> {
    const person = await this.findById(p);
    const workspace = this.access.workspaces.get(p.workspaceId);
    return person && workspace ? { person, workspace } : null;
  }

  async setPasswordHash(p: { workspaceId: string; personId: string; passwordHash: string }): Promise<Person | null> {
    const x = await this.findById(p);
    if (!x) return null;
    const next = { ...x, passwordHash: p.passwordHash };
    this.access.people.set(this.tx, x.id, next);
    return next;
  }
}

/** In-memory PersonSessionStore. */
export class InMemoryPersonSessionStore implements PersonSessionStore {
  constructor(
    private readonly tables: InMemoryPeopleTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  private live(workspaceId: string, sessionId: string): PersonSession | null {
    const s = this.tables.sessions.get(sessionId);
    return s && s.workspaceId === workspaceId && s.endedAt === null ? s : null;
  }

  async insert(p: { session: PersonSession }): Promise<void> {
    this.tables.sessions.set(this.tx, p.session.id, p.session);
  }

  async findByTokenHash(p: { tokenHash: string }): Promise<PersonSession | null> {
    return this.tables.sessions.values().find((s) => s.tokenHash === p.tokenHash) ?? null;
  }

  async touch(p: { workspaceId: string; sessionId: string; lastSeenAt: Date }): Promise<void> {
    const s = this.live(p.workspaceId, p.sessionId);
    if (s && s.lastSeenAt.getTime() < p.lastSeenAt.getTime()) this.tables.sessions.set(this.tx, s.id, { ...s, lastSeenAt: p.lastSeenAt });
  }

  async setStepUp(p: { workspaceId: string; sessionId: string; stepUpUntil: Date }): Promise<PersonSession | null> {
    const s = this.live(p.workspaceId, p.sessionId);
    if (!s) return null;
    const next = { ...s, stepUpUntil: p.stepUpUntil };
    this.tables.sessions.set(this.tx, s.id, next);
    return next;
  }

  async end(p: { workspaceId: string; sessionId: string; now: Date }): Promise<boolean> {
    const s = this.live(p.workspaceId, p.sessionId);
    if (!s) return false;
    this.tables.sessions.set(this.tx, s.id, { ...s, endedAt: p.now });
    return true;
  }

  async endAllOfPerson(p: { workspaceId: string; personId: string; now: Date; onlyWithoutMfa: boolean }): Promise<string[]> {
    const ended: string[] = [];
    for (const s of this.tables.sessions.values()) {
      if (s.workspaceId !== p.workspaceId || s.personId !== p.personId || s.endedAt !== null) continue;
      if (p.onlyWithoutMfa && s.createdWithMfa) continue;
      this.tables.sessions.set(this.tx, s.id, { ...s, endedAt: p.now });
      ended.push(s.id);
    }
    return ended;
  }

  async purgeBefore(p: { before: Date }): Promise<number> {
    let n = 0;
    for (const s of this.tables.sessions.values()) {
      const over = s.endedAt ?? s.expiresAt;
      if (over.getTime() < p.before.getTime()) {
        this.tables.sessions.delete(this.tx, s.id);
        n++;
      }
    }
    return n;
  }
}

/** In-memory SignInThrottleStore. */
export class InMemorySignInThrottleStore implements SignInThrottleStore {
  constructor(
    private readonly tables: InMemoryPeopleTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  // Atomic by construction: no await between counting and recording.
  async admitAttempt(p: { id: string; emailKey: string; addressKey: string; at: Date; since: Date; emailLimit: number; addressLimit: number }): Promise<{ admitted: boolean; email: ThrottleWindowCount; address: ThrottleWindowCount }> {
    const recent = this.tables.failures.values().filter((f) => f.at.getTime() >= p.since.getTime());
    const summary = (rows: typeof recent): ThrottleWindowCount => ({ count: rows.length, oldest: rows.reduce<Date | null>((o, f) => (o === null || f.at < o ? f.at : o), null) });
    const email = summary(recent.filter((f) => f.emailKey === p.emailKey));
    const address = summary(recent.filter((f) => f.addressKey === p.addressKey));
    const admitted = email.count < p.emailLimit && address.count < p.addressLimit;
    if (admitted) this.tables.failures.set(this.tx, p.id, { id: p.id, emailKey: p.emailKey, addressKey: p.addressKey, at: p.at });
    return { admitted, email, address };
  }

  async releaseAttempt(p: { id: string }): Promise<void> {
    if (this.tables.failures.get(p.id) !== undefined) this.tables.failures.delete(this.tx, p.id);
  }

  async purgeBefore(p: { before: Date }): Promise<number> {
    const old = this.tables.failures.values().filter((f) => f.at.getTime() < p.before.getTime());
    for (const f of old) this.tables.failures.delete(this.tx, f.id);
    return old.length;
  }
}
