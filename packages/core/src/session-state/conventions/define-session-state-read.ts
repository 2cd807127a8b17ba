import type { TObject, TSchema } from "@sinclair/typebox";
import { defineReadOperation, type Operation, type ReadOperationEntry } from "../../operation.ts";
import { SESSION_STATE_READ } from "./operation-fields.ts";

/** A read-only operation of a session-state record, under the read rule (`SESSION_STATE_READ`): see `defineReadOperation`. */
export function defineSessionStateRead<I extends TObject, O extends TSchema>(entry: Omit<ReadOperationEntry<I, O>, "auth">): Operation<I, O> {
  return defineReadOperation({ ...entry, auth: SESSION_STATE_READ });
}
