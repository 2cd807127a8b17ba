import { verifyCaller } from "../access/authenticate.ts";
import { authorize } from "../access/authorize.ts";
import type { Principal } from "../access/model.ts";
import type { CoreDeps } from "../deps.ts";
import { DomainError } from "../errors.ts";
import type { Operation, OperationContext, OperationResult } from "../operation.ts";
import { validateInput } from "./validate-input.ts";
import { personWorkspaceRefusal } from "../people/step-up.ts";
import { enforceRateLimit } from "../rate-limits/enforce-rate-limit.ts";

/**
 * Runs one operation for an edge (REST route, MCP tool, CLI via REST): counts the call against
 * the caller's rate limits when `deps.rateLimiter` is set (telling `ctx.onRateLimit` the
 * tightest bucket before anything can fail, so every authenticated response can carry it; an
 * empty bucket is 429 SVC_RATE_LIMITED), authorizes the principal
 * for the operation, enforces the Idempotency-Key rule, validates the input against the
 * operation's schema, then calls the handler. The edge has already authenticated the caller
 * (`ctx.principal`) and assembled `rawInput`. A person's session is refused first when their
 * workspace is frozen or closed (`personWorkspaceRefusal`), and authorized by role.
 * @throws DomainError SVC_RATE_LIMITED, SVC_TIER_INSUFFICIENT, SVC_SCOPE_INSUFFICIENT, SVC_IDEMPOTENCY_KEY_REQUIRED,
 *   SVC_MALFORMED_REQUEST, and whatever the handler throws.
 */
export async function executeOperation(deps: CoreDeps, op: Operation, ctx: OperationContext, rawInput: unknown): Promise<OperationResult> {
  // A principal from the authenticator's cache is checked here unless the operation guards its own write.
  // (A public operation that accepts a credential may have got one: it is checked the same way.)
  const caller = ctx.principal as Principal | undefined;
  if (op.auth.kind !== "public" && caller?.kind === "person") {
    const refusal = personWorkspaceRefusal(caller, op.name);
    if (refusal !== null) throw refusal;
  }
  if (caller !== undefined && caller.kind !== "person" && caller.callerCheckDeferred === true && op.guardsCaller !== true) ctx = { ...ctx, principal: await verifyCaller(deps, caller) };
  if (op.auth.kind !== "public" && deps.rateLimiter !== undefined) {
    const { status, refusal } = await enforceRateLimit({ stores: deps.stores, clock: deps.clock, rateLimiter: deps.rateLimiter }, ctx.principal, op.rateLimitCost ?? 1);
    ctx.onRateLimit?.(status);
    if (refusal !== null) throw refusal;
  }
  authorize(ctx.principal, op.auth, op.mutates);
  if (op.idempotency === "required" && ctx.idempotencyKey === null) {
    throw new DomainError("SVC_IDEMPOTENCY_KEY_REQUIRED", "This operation requires an Idempotency-Key header.");
  }
  if (ctx.idempotencyKey !== null && (ctx.idempotencyKey.length === 0 || ctx.idempotencyKey.length > 255)) {
    throw new DomainError("SVC_MALFORMED_REQUEST", "Idempotency-Key must be 1 to 255 characters.", { field: "Idempotency-Key" });
  }
  const input = validateInput(op.input, rawInput);
  return op.handler(deps, ctx, input);
}
