import type { Person, PersonMfa, PersonSession, PersonSessionStore, PersonStore, SignInThrottleStore, ThrottleWindowCount, Workspace } from "@agentq/core";
import { atomically } from "./queries/atomically.ts";
import { withPgErrors } from "./pg-errors.ts";
import * as q from "./queries/people.ts";
import type { SqlClient } from "./sql-client.ts";

/** PersonStore on PostgreSQL. */
export class PgPersonStore implements PersonStore {
  constructor(private readonly sql: SqlClient) {}
  insert(p: { person: Person }): Promise<{ kind: "created" } | { kind: "email_taken" }> {
    return withPgErrors(async () => ((await q.personsInsert(this.sql, p)) ? { kind: "created" } : { kind: "email_taken" }));
  }
  findByEmail(p: { email: string }): Promise<Person | null> {
    return withPgErrors(() => q.personsFindByEmail(this.sql, p));
  }
  findById(p: { workspaceId: string; personId: string }): Promise<Person | null> {
    return withPgErrors(() => q.personsFindById(this.sql, p));
  }
  loadSessionContext(p: { workspaceId: string; personId: string }): Promise<{ person: Person; workspace: Workspace } | null> {
    return withPgErrors(() => q.personsLoadSessionContext(this.sql, p));
  }
  setPasswordHash(p: { workspaceId: string; personId: string; passwordHash: string }): Promise<Person | null> {
    return withPgErrors(() => q.personsSetPasswordHash(this.sql, p));
  }
  loadMfa(p: { workspaceId: string; personId: string }): Promise<PersonMfa | null> {
    return withPgErrors(() => q.personsLoadMfa(this.sql, p));
  }
  setPendingTotp(p: { workspaceId: string; personId: string; sealed: string }): Promise<void> {
    return withPgErrors(() => q.personsSetPendingTotp(this.sql, p));
  }
  confirmTotp(p: { workspaceId: string; personId: string; step: number; now: Date; recoveryCodeHashes: readonly string[] }): Promise<boolean> {
    return withPgErrors(() => q.personsConfirmTotp(this.sql, p));
  }
  useTotpStep(p: { workspaceId: string; personId: string; step: number }): Promise<boolean> {
    return withPgErrors(() => q.personsUseTotpStep(this.sql, p));
  }
  useRecoveryCode(p: { workspaceId: string; personId: string; codeHash: string; now: Date }): Promise<boolean> {
    return withPgErrors(() => q.recoveryCodesUse(this.sql, p));
  }
  countRecoveryCodes(p: { workspaceId: string; personId: string }): Promise<number> {
    return withPgErrors(() => q.recoveryCodesCount(this.sql, p));
  }
  disableTotp(p: { workspaceId: string; personId: string }): Promise<boolean> {
    return withPgErrors(() => q.personsDisableTotp(this.sql, p));
  }
  replaceRecoveryCodes(p: { workspaceId: string; personId: string; now: Date; recoveryCodeHashes: readonly string[] }): Promise<boolean> {
    return withPgErrors(() => q.recoveryCodesReplace(this.sql, p));
  }
}

/** PersonSessionStore on PostgreSQL. */
export class PgPersonSessionStore implements PersonSessionStore {
  constructor(private readonly sql: SqlClient) {}
  insert(p: { session: PersonSession }): Promise<void> {
    return withPgErrors(() => q.sessionsInsert(this.sql, p));
  }
  findByTokenHash(p: { tokenHash: string }): Promise<PersonSession | null> {
    return withPgErrors(() => q.sessionsFindByTokenHash(this.sql, p));
  }
  touch(p: { workspaceId: string; sessionId: string; lastSeenAt: Date }): Promise<void> {
    return withPgErrors(() => q.sessionsTouch(this.sql, p));
  }
  setStepUp(p: { workspaceId: string; sessionId: string; stepUpUntil: Date }): Promise<PersonSession | null> {
    return withPgErrors(() => q.sessionsSetStepUp(this.sql, p));
  }
  end(p: { workspaceId: string; sessionId: string; now: Date }): Promise<boolean> {
    return withPgErrors(() => q.sessionsEnd(this.sql, p));
  }
  endAllOfPerson(p: { workspaceId: string; personId: string; now: Date; onlyWithoutMfa: boolean }): Promise<string[]> {
    return withPgErrors(() => q.sessionsEndAllOfPerson(this.sql, p));
  }
  purgeBefore(p: { before: Date }): Promise<number> {
    return withPgErrors(() => q.sessionsPurgeBefore(this.sql, p));
  }
}

/** SignInThrottleStore on PostgreSQL: each admission is one transaction (a savepoint inside a caller's) under the keys' advisory locks. */
export class PgSignInThrottleStore implements SignInThrottleStore {
  constructor(private readonly sql: SqlClient) {}
  admitAttempt(p: { id: string; emailKey: string; addressKey: string; at: Date; since: Date; emailLimit: number; addressLimit: number }): Promise<{ admitted: boolean; email: ThrottleWindowCount; address: ThrottleWindowCount }> {
    return withPgErrors(async () => {
      const r = await atomically(this.sql, async (tx) => {
        await q.signInFailuresLockKey(tx, { scope: "email", key: p.emailKey });
        await q.signInFailuresLockKey(tx, { scope: "address", key: p.addressKey });
        return q.signInFailuresAdmit(tx, p);
      });
      if ("kind" in r) throw new Error("unreachable: the admission never undoes itself");
      return r;
    });
  }
  releaseAttempt(p: { id: string }): Promise<void> {
    return withPgErrors(() => q.signInFailuresDelete(this.sql, p));
  }
  purgeBefore(p: { before: Date }): Promise<number> {
    return withPgErrors(() => q.signInFailuresPurgeBefore(this.sql, p));
  }
}
