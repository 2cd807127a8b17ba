import type { LinkedIdentity, LinkedIdentityStore, PendingSignUpStore } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import { queryStore } from "./pg-query-store.ts";
import * as q from "./queries/pending-sign-ups.ts";
import * as ids from "./queries/person-identities.ts";
import type { SqlClient } from "./sql-client.ts";

/** PendingSignUpStore on PostgreSQL. */
export class PgPendingSignUpStore extends queryStore({
  insert: q.pendingSignUpsInsert, countSince: q.pendingSignUpsCountSince, take: q.pendingSignUpsTake,
  purgeExpiredBefore: q.pendingSignUpsPurgeExpiredBefore,
}) implements PendingSignUpStore {}

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
