import type { TObject, TSchema } from "@sinclair/typebox";
import type { Operation } from "../../operation.ts";
import { SESSION_STATE_READ } from "./operation-fields.ts";

/** What a read-only session-state entry states itself: all of an operation but its read rule, and a GET path. */
export type SessionStateReadEntry<I extends TObject, O extends TSchema> = Omit<Operation<I, O>, "http" | "auth" | "idempotency" | "mutates" | "successStatus"> & {
  http: { path: string; query?: readonly string[] };
};

/**
 * A read-only operation of a session-state record: a GET under the read rule (`SESSION_STATE_READ`),
 * no Idempotency-Key, no change of state, answered 200. The entry names the rest.
 */
export function defineSessionStateRead<I extends TObject, O extends TSchema>(entry: SessionStateReadEntry<I, O>): Operation<I, O> {
  return { ...entry, http: { method: "GET", ...entry.http }, auth: SESSION_STATE_READ, idempotency: "none", mutates: false, successStatus: 200 };
}
