import type { Clock, CoreDeps, IdSource, ServerSecrets } from "@agentq/core";
import { ulidSource } from "@agentq/core";
import type postgres from "postgres";
import { createPgStores, PgTxRunner } from "./pg-stores.ts";
import { PgWakeupNotifier } from "./pg-wakeup-notifier.ts";

/** The wall clock (the database clock stays the authority for leases). */
export const systemClock: Clock = { now: () => new Date() };

/** CoreDeps over PostgreSQL, plus the notifier's lifecycle. */
export interface PgDeps extends CoreDeps {
  notifier: PgWakeupNotifier;
  /** Stops the notifier's LISTEN (the caller owns and ends the pool). */
  close(): Promise<void>;
}

/**
 * Assembles CoreDeps on one postgres.js pool: pool-bound stores, a PgTxRunner, one
 * PgWakeupNotifier (the process's single LISTEN connection), the system clock and monotonic
 * ULIDs unless given.
 */
export function createPgDeps(p: { sql: postgres.Sql; secrets: ServerSecrets; clock?: Clock; ids?: IdSource; notifier?: PgWakeupNotifier }): PgDeps {
  const notifier = p.notifier ?? new PgWakeupNotifier(p.sql);
  return {
    stores: createPgStores(p.sql),
    tx: new PgTxRunner(p.sql),
    clock: p.clock ?? systemClock,
    ids: p.ids ?? ulidSource(),
    notifier,
    secrets: p.secrets,
    close: () => notifier.close(),
  };
}
