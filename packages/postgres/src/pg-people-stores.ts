import type { Person, PersonSessionStore, PersonStore, SignInThrottleStore, ThrottleWindowCount } from "@agentq/core";
import { atomically } from "./queries/atomically.ts";
import { withPgErrors } from "./pg-errors.ts";
import { queryStore } from "./pg-query-store.ts";
import * as q from "./queries/people.ts";

/** PersonStore on PostgreSQL. */
export class PgPersonStore extends queryStore({
  findByEmail: q.personsFindByEmail, findById: q.personsFindById, loadSessionContext: q.personsLoadSessionContext,
  setPasswordHash: q.personsSetPasswordHash, loadMfa: q.personsLoadMfa, setPendingTotp: q.personsSetPendingTotp, confirmTotp: q.personsConfirmTotp,
  useTotpStep: q.personsUseTotpStep, useRecoveryCode: q.recoveryCodesUse, countRecoveryCodes: q.recoveryCodesCount, disableTotp: q.personsDisableTotp,
  replaceRecoveryCodes: q.recoveryCodesReplace,
}) implements PersonStore {
  insert(p: { person: Person }): Promise<{ kind: "created" } | { kind: "email_taken" }> {
    return withPgErrors(async () => ((await q.personsInsert(this.sql, p)) ? { kind: "created" } : { kind: "email_taken" }));
  }
}

/** PersonSessionStore on PostgreSQL. */
export class PgPersonSessionStore extends queryStore({
  insert: q.sessionsInsert, findByTokenHash: q.sessionsFindByTokenHash, touch: q.sessionsTouch, setStepUp: q.sessionsSetStepUp, end: q.sessionsEnd,
  endAllOfPerson: q.sessionsEndAllOfPerson, purgeBefore: q.sessionsPurgeBefore,
}) implements PersonSessionStore {}

/** SignInThrottleStore on PostgreSQL: each admission is one transaction (a savepoint inside a caller's) under the keys' advisory locks. */
export class PgSignInThrottleStore extends queryStore({ releaseAttempt: q.signInFailuresDelete, purgeBefore: q.signInFailuresPurgeBefore }) implements SignInThrottleStore {
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
}
