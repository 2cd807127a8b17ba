import type { LinkedIdentity, LinkedIdentityStore, PendingSignUp, PendingSignUpStore } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import * as q from "./queries/pending-sign-ups.ts";
import * as ids from "./queries/person-identities.ts";
import type { SqlClient } from "./sql-client.ts";

/** PendingSignUpStore on PostgreSQL. */
export class PgPendingSignUpStore implements PendingSignUpStore {
  constructor(private readonly sql: SqlClient) {}
  insert(p: { signUp: PendingSignUp }): Promise<void> {
    return withPgErrors(() => q.pendingSignUpsInsert(this.sql, p));
  }
  countSince(p: { email: string; since: Date }): Promise<number> {
    return withPgErrors(() => q.pendingSignUpsCountSince(this.sql, p));
  }
  take(p: { tokenHash: string; now: Date }): Promise<PendingSignUp | null> {
    return withPgErrors(() => q.pendingSignUpsTake(this.sql, p));
  }
  purgeExpiredBefore(p: { before: Date }): Promise<number> {
    return withPgErrors(() => q.pendingSignUpsPurgeExpiredBefore(this.sql, p));
  }
}

/** LinkedIdentityStore on PostgreSQL. */
export class PgLinkedIdentityStore implements LinkedIdentityStore {
  constructor(private readonly sql: SqlClient) {}
  link(p: { identity: LinkedIdentity }): Promise<{ kind: "linked" } | { kind: "already_linked"; identity: LinkedIdentity }> {
    return withPgErrors(async () => {
      // The pair conflicted, so a row exists, unless its person was removed in between: then insert again.
      for (let attempt = 0; attempt < 3; attempt++) {
        if (await ids.personIdentitiesInsert(this.sql, p)) return { kind: "linked" };
        const existing = await ids.personIdentitiesFindBySubject(this.sql, p.identity);
        if (existing !== null) return { kind: "already_linked", identity: existing };
      }
      throw new Error("person_identities: the identity kept conflicting and vanishing");
    });
  }
  findBySubject(p: { issuer: string; subject: string }): Promise<LinkedIdentity | null> {
    return withPgErrors(() => ids.personIdentitiesFindBySubject(this.sql, p));
  }
  listOfPerson(p: { workspaceId: string; personId: string }): Promise<LinkedIdentity[]> {
    return withPgErrors(() => ids.personIdentitiesListOfPerson(this.sql, p));
  }
}
