import type { Credential, CredentialStore } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import { queryStore } from "./pg-query-store.ts";
import {
  credentialsFindById, credentialsFindByTokenHash, credentialsInsert, credentialsList, credentialsMarkRotated, credentialsRecordUse, credentialsRevoke, credentialsRevokeAllForAccount,
} from "./queries/credentials.ts";

/** CredentialStore on PostgreSQL, bound to a pool or to one transaction. */
export class PgCredentialStore extends queryStore({
  insert: credentialsInsert, findByTokenHash: credentialsFindByTokenHash, findById: credentialsFindById, list: credentialsList,
  revokeAllForAccount: credentialsRevokeAllForAccount, recordUse: credentialsRecordUse,
}) implements CredentialStore {
  revoke(p: { workspaceId: string; credentialId: string; now: Date }): Promise<{ kind: "revoked"; credential: Credential } | { kind: "already_revoked" } | { kind: "not_found" }> {
    return withPgErrors(async () => {
      const revoked = await credentialsRevoke(this.sql, p);
      if (revoked !== null) return { kind: "revoked", credential: revoked };
      return (await credentialsFindById(this.sql, p)) === null ? { kind: "not_found" } : { kind: "already_revoked" };
    });
  }

  markRotated(p: { workspaceId: string; credentialId: string; successorId: string; overlapEndsAt: Date }): Promise<{ kind: "rotated"; credential: Credential } | { kind: "conflict" } | { kind: "not_found" }> {
    return withPgErrors(async () => {
      const rotated = await credentialsMarkRotated(this.sql, p);
      if (rotated !== null) return { kind: "rotated", credential: rotated };
      return (await credentialsFindById(this.sql, p)) === null ? { kind: "not_found" } : { kind: "conflict" };
    });
  }
}
