import type { IdempotencyRecord, IdempotencyStore } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import { queryStore } from "./pg-query-store.ts";
import { idempotencyKeysComplete, idempotencyKeysFind, idempotencyKeysFindAny, idempotencyKeysInsert, idempotencyKeysPurgeExpired } from "./queries/idempotency-keys.ts";

/** IdempotencyStore on PostgreSQL, bound to a pool or to one transaction. */
export class PgIdempotencyStore extends queryStore({ find: idempotencyKeysFind, complete: idempotencyKeysComplete, purgeExpired: idempotencyKeysPurgeExpired }) implements IdempotencyStore {
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
}
