import { verifyCaller } from "../access/authenticate.ts";
import { authorize } from "../access/authorize.ts";
import type { Principal } from "../access/model.ts";
import type { CoreDeps } from "../deps.ts";
import { DomainError } from "../errors.ts";
import { withContext, type Operation, type OperationContext, type OperationResult } from "../operation.ts";
import { validateInput, validateInputNamingField } from "./validate-input.ts";
import { personWorkspaceRefusal } from "../people/step-up.ts";
import { authorizePersonOperation } from "../people/person-access.ts";
import { enforceRateLimit } from "../rate-limits/enforce-rate-limit.ts";

/**
 * Runs one operation for an edge (REST route, MCP tool, CLI via REST): counts the call against
 * the caller's rate limits when `deps.rateLimiter` is set (telling `ctx.onRateLimit` the
 * tightest bucket before anything can fail, so every authenticated response can carry it; an
 * empty bucket is 429 SVC_RATE_LIMITED), authorizes the principal
 * for the operation, enforces the Idempotency-Key rule, validates the input against the
 * operation's schema, then calls the handler. The edge has already authenticated the caller
 * (`ctx.principal`) and assembled `rawInput`. A person's session is refused first when their
 * workspace is frozen or closed (`personWorkspaceRefusal`), and authorized by role. An operation
 * for people (`auth.kind` "person") is authorized by `authorizePersonOperation` instead, and
 * spends no rate-limit token (its use cases keep their own limits, as they always had); its
 * input is checked before its rule, as the people's routes always did. The
 * result's status is the handler's, or else the operation's `successStatus`.
 * @throws DomainError SVC_RATE_LIMITED, SVC_TIER_INSUFFICIENT, SVC_SCOPE_INSUFFICIENT, SVC_IDEMPOTENCY_KEY_REQUIRED,
 *   SVC_MALFORMED_REQUEST, and whatever the handler throws.
 */
export async function executeOperation(deps: CoreDeps, op: Operation, ctx: OperationContext, rawInput: unknown): Promise<OperationResult> {
  // A principal from the authenticator's cache is checked here unless the operation guards its own write.
  // (A public operation that accepts a credential may have got one: it is checked the same way.)
  const caller = ctx.principal as Principal | undefined;
  if (op.auth.kind === "credential" && caller?.kind === "person") {
    const refusal = personWorkspaceRefusal(caller, op.name);
    if (refusal !== null) throw refusal;
  }
  if (caller !== undefined && caller.kind !== "person" && caller.callerCheckDeferred === true && op.guardsCaller !== true) ctx = withContext(ctx, { principal: await verifyCaller(deps, caller) });
  if (op.auth.kind === "credential" && deps.rateLimiter !== undefined) {
    const { status, refusal } = await enforceRateLimit({ stores: deps.stores, clock: deps.clock, rateLimiter: deps.rateLimiter }, ctx.principal, op.rateLimitCost ?? 1);
    ctx.onRateLimit?.(status);
    if (refusal !== null) throw refusal;
  }
  if (op.auth.kind !== "person") authorize(ctx.principal, op.auth, op.mutates);
  if (op.idempotency === "required" && ctx.idempotencyKey === null) {
    throw new DomainError("SVC_IDEMPOTENCY_KEY_REQUIRED", "This operation requires an Idempotency-Key header.");
  }
  if (ctx.idempotencyKey !== null && (ctx.idempotencyKey.length === 0 || ctx.idempotencyKey.length > 255)) {
    throw new DomainError("SVC_MALFORMED_REQUEST", "Idempotency-Key must be 1 to 255 characters.", { field: "Idempotency-Key" });
  }
  // People's operations (not MCP tools) name the invalid field, as their routes always have.
  const input = isPeoplesOperation(op) ? validateInputNamingField(op.input, rawInput) : validateInput(op.input, rawInput);
  // Checked after the input, as the people's routes always were (a malformed request is 400 whoever sends it).
  if (op.auth.kind === "person") authorizePersonOperation(ctx.principal, op.auth, op.name, deps.clock.now());
  const result = await op.handler(deps, ctx, input);
  return { ...result, status: result.status ?? op.successStatus };
}

/** An operation for people: a person's session operation, or one no MCP client is offered (sign-in, password reset). */
function isPeoplesOperation(op: Operation): boolean {
  return op.auth.kind === "person" || (op.surfaces !== undefined && !op.surfaces.includes("mcp"));
}
