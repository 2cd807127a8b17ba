import type { Credential, CredentialStore } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import {
  credentialsFindById, credentialsFindByTokenHash, credentialsInsert, credentialsList, credentialsMarkRotated, credentialsRecordUse, credentialsRevoke, credentialsRevokeAllForAccount,
} from "./queries/credentials.ts";
import type { SqlClient } from "./sql-client.ts";

/** CredentialStore on PostgreSQL, bound to a pool or to one transaction. */
export class PgCredentialStore implements CredentialStore {
  constructor(private readonly sql: SqlClient) {}

  insert(p: { credential: Credential }): Promise<void> {
    return withPgErrors(() => credentialsInsert(this.sql, p));
  }

  findByTokenHash(p: { tokenHash: string }): Promise<Credential | null> {
    return withPgErrors(() => credentialsFindByTokenHash(this.sql, p));
  }

  findById(p: { workspaceId: string; credentialId: string }): Promise<Credential | null> {
    return withPgErrors(() => credentialsFindById(this.sql, p));
  }

  list(p: { workspaceId: string; aiAccountId: string | null; after: string | null; limit: number }): Promise<Credential[]> {
    return withPgErrors(() => credentialsList(this.sql, p));
  }

  revoke(p: { workspaceId: string; credentialId: string; now: Date }): Promise<{ kind: "revoked"; credential: Credential } | { kind: "already_revoked" } | { kind: "not_found" }> {
    return withPgErrors(async () => {
      const revoked = await credentialsRevoke(this.sql, p);
      if (revoked !== null) return { kind: "revoked", credential: revoked };
      return (await credentialsFindById(this.sql, p)) === null ? { kind: "not_found" } : { kind: "already_revoked" };
    });
  }

  revokeAllForAccount(p: { workspaceId: string; aiAccountId: string; now: Date }): Promise<Credential[]> {
    return withPgErrors(() => credentialsRevokeAllForAccount(this.sql, p));
  }

  markRotated(p: { workspaceId: string; credentialId: string; successorId: string; overlapEndsAt: Date }): Promise<{ kind: "rotated"; credential: Credential } | { kind: "conflict" } | { kind: "not_found" }> {
    return withPgErrors(async () => {
      const rotated = await credentialsMarkRotated(this.sql, p);
      if (rotated !== null) return { kind: "rotated", credential: rotated };
      return (await credentialsFindById(this.sql, p)) === null ? { kind: "not_found" } : { kind: "conflict" };
    });
  }

  recordUse(p: { workspaceId: string; credentialId: string; aiAccountId: string; now: Date; staleBefore: Date }): Promise<void> {
    return withPgErrors(() => credentialsRecordUse(this.sql, p));
  }
}
