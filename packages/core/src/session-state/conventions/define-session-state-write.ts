import type { Static, TObject, TSchema } from "@sinclair/typebox";
import type { CoreDeps } from "../../deps.ts";
import { runIdempotent } from "../../idempotency/run-idempotent.ts";
import type { HandlerResult, Operation, OperationAuth, OperationContext } from "../../operation.ts";
import type { Stores } from "../../ports.ts";
import { SESSION_STATE_WRITE } from "./operation-fields.ts";

/** What a session-state write states itself: all of an operation but its write rule, with `run` in place of the handler. */
export type SessionStateWriteEntry<I extends TObject, O extends TSchema> = Omit<Operation<I, O>, "auth" | "idempotency" | "mutates" | "handler"> & {
  /** Who may write (default `SESSION_STATE_WRITE`; the project plane's `PROJECT_WRITE`). */
  auth?: OperationAuth;
  /** The write, inside the transaction of `runIdempotent`; its status, when left out, is the entry's `successStatus`. */
  run: (deps: CoreDeps, ctx: OperationContext, input: Static<I>, stores: Stores) => Promise<HandlerResult>;
};

/**
 * A write of a session-state record: a mutation with an optional Idempotency-Key, run in one
 * transaction by `runIdempotent` (a replay answers the stored status and body), under the write
 * rule (`SESSION_STATE_WRITE` unless the entry names another).
 */
export function defineSessionStateWrite<I extends TObject, O extends TSchema>(entry: SessionStateWriteEntry<I, O>): Operation<I, O> {
  const { run, auth, ...rest } = entry;
  return {
    ...rest,
    auth: auth ?? SESSION_STATE_WRITE,
    idempotency: "optional",
    mutates: true,
    handler: (deps, ctx, input) =>
      runIdempotent(deps, ctx, async (stores) => {
        const result = await run(deps, ctx, input, stores);
        return { ...result, status: result.status ?? entry.successStatus };
      }),
  };
}
