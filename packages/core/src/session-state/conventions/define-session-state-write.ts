import type { TObject, TSchema } from "@sinclair/typebox";
import { defineWriteOperation, type WriteOperationEntry } from "../../idempotency/define-write-operation.ts";
import type { Operation, OperationAuth } from "../../operation.ts";
import { SESSION_STATE_WRITE } from "./operation-fields.ts";

/** What a session-state write states itself: a write (`defineWriteOperation`) but its write rule and its optional Idempotency-Key. */
export type SessionStateWriteEntry<I extends TObject, O extends TSchema> = Omit<WriteOperationEntry<I, O>, "auth" | "idempotency"> & {
  /** Who may write (default `SESSION_STATE_WRITE`; the project plane's `PROJECT_WRITE`). */
  auth?: OperationAuth;
};

/**
 * A write of a session-state record: a mutation with an optional Idempotency-Key, run in one
 * transaction by `runIdempotent` (a replay answers the stored status and body), under the write
 * rule (`SESSION_STATE_WRITE` unless the entry names another).
 */
export function defineSessionStateWrite<I extends TObject, O extends TSchema>(entry: SessionStateWriteEntry<I, O>): Operation<I, O> {
  return defineWriteOperation({ ...entry, auth: entry.auth ?? SESSION_STATE_WRITE });
}
