import type { Static, TObject, TSchema } from "@sinclair/typebox";
import type { CoreDeps } from "../deps.ts";
import type { HandlerResult, Operation, OperationContext } from "../operation.ts";
import type { Stores } from "../ports.ts";
import { runIdempotent } from "./run-idempotent.ts";

/** What a write states itself: all of an operation but `mutates`, with `run` in place of the handler and an Idempotency-Key optional unless it says required. */
export type WriteOperationEntry<I extends TObject, O extends TSchema> = Omit<Operation<I, O>, "idempotency" | "mutates" | "handler"> & {
  /** Default `optional`. */
  idempotency?: "optional" | "required";
  /** The write, inside the transaction of `runIdempotent`; its status, when left out, is the entry's `successStatus` (stored for replays too). */
  run: (deps: CoreDeps, ctx: OperationContext, input: Static<I>, stores: Stores) => Promise<HandlerResult>;
};

/**
 * A mutation run in one transaction by `runIdempotent` under the caller's Idempotency-Key (a
 * replay answers the stored status and body), answered with the entry's `successStatus` unless
 * `run` names another.
 */
export function defineWriteOperation<I extends TObject, O extends TSchema>(entry: WriteOperationEntry<I, O>): Operation<I, O> {
  const { run, idempotency, ...rest } = entry;
  return {
    ...rest,
    idempotency: idempotency ?? "optional",
    mutates: true,
    handler: (deps, ctx, input) =>
      runIdempotent(deps, ctx, async (stores) => {
        const result = await run(deps, ctx, input, stores);
        return { ...result, status: result.status ?? entry.successStatus };
      }),
  };
}
