import type { Principal } from "../access/model.ts";
import type { CoreDeps } from "../deps.ts";
import { isDomainError } from "../errors.ts";
import { requestFingerprint } from "../idempotency/request-fingerprint.ts";
import { findOperation } from "../catalogue.ts";
import { executeOperation } from "../execution/execute.ts";
import type { OperationResult } from "../operation.ts";
import type { RateLimitStatus } from "../rate-limits/rate-limit-status.ts";
import { fixtureId } from "./access-fixtures.ts";
import { callContext } from "./principal-fixtures.ts";

/**
 * Calls a catalogue operation by name as an edge would (rate limit, authorize, idempotency
 * rule, validation, handler), with a fresh Idempotency-Key unless `key` is given (null: none).
 * `onRateLimit` receives the rate-limit state the edge would turn into headers.
 */
export async function callOperation(deps: CoreDeps, who: Principal, name: string, input: Record<string, unknown>, opts: { key?: string | null; onRateLimit?: (s: RateLimitStatus) => void } = {}): Promise<OperationResult> {
  const op = findOperation(name);
  if (!op) throw new Error(`no operation ${name}`);
  const key = op.idempotency === "none" ? null : opts.key === undefined ? fixtureId() : opts.key;
  const ctx = { ...callContext(who, { idempotencyKey: key, fingerprint: requestFingerprint({ method: op.http.method, path: op.http.path, body: input }) }), ...(opts.onRateLimit ? { onRateLimit: opts.onRateLimit } : {}) };
  return executeOperation(deps, op, ctx, input);
}

/** The SVC_ code the promise rejects with, or "none" when it resolves. Rethrows other errors. */
export async function refusalCode(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    if (isDomainError(e)) return e.code;
    throw e;
  }
  return "none";
}

/** The DomainError the promise rejects with. */
export async function refusalOf(p: Promise<unknown>): Promise<{ code: string; details: Record<string, unknown> | undefined; retryAfterSeconds: number | undefined }> {
  try {
    await p;
  } catch (e) {
    if (isDomainError(e)) return { code: e.code, details: e.details, retryAfterSeconds: e.retryAfterSeconds };
    throw e;
  }
  throw new Error("expected a refusal");
}

/** A send body from the messaging scenario's alice to `to` (default bob). */
export function sendBody(to = "bob"): Record<string, unknown> {
  return { envelope: { recipient: { friendly_name: to }, template: "directive" }, payload: { directive_kind: "task", summary: "s", instructions: "i" } };
}
