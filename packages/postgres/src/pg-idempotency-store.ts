import type { IdempotencyRecord, IdempotencyStore } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import { idempotencyKeysComplete, idempotencyKeysFind, idempotencyKeysFindAny, idempotencyKeysInsert, idempotencyKeysPurgeExpired } from "./queries/idempotency-keys.ts";
import type { SqlClient } from "./sql-client.ts";

/** IdempotencyStore on PostgreSQL, bound to a pool or to one transaction. */
export class PgIdempotencyStore implements IdempotencyStore {
  constructor(private readonly sql: SqlClient) {}

  find(p: { workspaceId: string; accountId: string; key: string }): Promise<IdempotencyRecord | null> {
    return withPgErrors(() => idempotencyKeysFind(this.sql, p));
  }

  claim(p: { record: IdempotencyRecord }): Promise<{ kind: "claimed" } | { kind: "exists"; record: IdempotencyRecord }> {
    return withPgErrors(async () => {
      for (let attempt = 0; ; attempt++) {
        if (await idempotencyKeysInsert(this.sql, p)) return { kind: "claimed" };
        // The insert waited for the holder of the key to commit; this new statement sees its row.
        const record = await idempotencyKeysFindAny(this.sql, p.record);
        if (record !== null) return { kind: "exists", record };
        // Purged between the two statements: claim again.
        if (attempt >= 2) throw new Error("idempotency claim: the conflicting key vanished repeatedly");
      }
    });
  }

  complete(p: { workspaceId: string; accountId: string; key: string; status: number; bodyText: string }): Promise<void> {
    return withPgErrors(() => idempotencyKeysComplete(this.sql, p));
  }

  purgeExpired(p: { now: Date; limit: number }): Promise<number> {
    return withPgErrors(() => idempotencyKeysPurgeExpired(this.sql, p));
  }
}
