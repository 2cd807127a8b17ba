import type { CoreDeps } from "../deps.ts";
import type { OperationContext, OperationResult } from "../operation.ts";
import type { Stores } from "../ports.ts";
import { IDEMPOTENCY_RETENTION_MS } from "./idempotency-record.ts";
import { replayOrConflict } from "./replay.ts";
import { callerKey } from "../access/principal.ts";

/**
 * Runs a mutation under the caller's Idempotency-Key (every mutation but send, which writes its
 * record inside `MessageStore.acceptSend`). In one transaction: claims the key (a concurrent
 * request with the same key waits for this one and then replays it), runs `fn` with the
 * transaction's stores, and stores `fn`'s response (status and `JSON.stringify(body)`) for 24 h.
 * A replay returns the stored status and parsed body without running `fn`. When `fn` throws,
 * the transaction rolls back and the key stays unspent. Without a key it just runs `fn` in a
 * transaction.
 * @throws DomainError SVC_IDEMPOTENCY_CONFLICT (details.original_request_id) when the key was
 *   used for a different request; whatever `fn` throws.
 */
export async function runIdempotent(deps: CoreDeps, ctx: OperationContext, fn: (stores: Stores) => Promise<OperationResult>): Promise<OperationResult> {
  const key = ctx.idempotencyKey;
  return deps.tx.run(async (stores) => {
    if (key === null) return fn(stores);
    const now = deps.clock.now();
    const workspaceId = ctx.principal.workspace.id;
    const accountId = callerKey(ctx.principal);
    const claim = await stores.idempotency.claim({
      record: { workspaceId, accountId, key, fingerprint: ctx.fingerprint, requestId: ctx.requestId, status: null, bodyText: null, createdAt: now, expiresAt: new Date(now.getTime() + IDEMPOTENCY_RETENTION_MS) },
    });
    if (claim.kind === "exists") return replayOrConflict(claim.record, ctx);
    const result = await fn(stores);
    await stores.idempotency.complete({ workspaceId, accountId, key, status: result.status, bodyText: JSON.stringify(result.body) });
    return { ...result, body: JSON.parse(JSON.stringify(result.body)) as unknown };
  });
}
