import { DomainError } from "../errors.ts";
import type { OperationContext, OperationResult } from "../operation.ts";
import type { IdempotencyRecord } from "./idempotency-record.ts";

/**
 * What a stored idempotency record means for the current request: the original response when
 * the fingerprints match (the REST edge re-stringifies the parsed body, which is byte-identical
 * to the stored text because the stored text is itself a JSON.stringify output), a conflict
 * otherwise.
 * @throws DomainError SVC_IDEMPOTENCY_CONFLICT with details.original_request_id when the key was
 *   used for another request (other body or other endpoint), or when the first request is still
 *   in progress (no response stored yet).
 */
export function replayOrConflict(record: IdempotencyRecord, ctx: Pick<OperationContext, "fingerprint">): OperationResult {
  if (record.fingerprint !== ctx.fingerprint) {
    throw new DomainError("SVC_IDEMPOTENCY_CONFLICT", "This Idempotency-Key was already used with a different request.", { original_request_id: record.requestId });
  }
  if (record.status === null || record.bodyText === null) {
    throw new DomainError("SVC_IDEMPOTENCY_CONFLICT", "The first request with this Idempotency-Key is still in progress.", { original_request_id: record.requestId });
  }
  return { status: record.status, body: JSON.parse(record.bodyText) as unknown };
}
