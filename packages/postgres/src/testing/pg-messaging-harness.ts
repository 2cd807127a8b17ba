import type { MessagingHarness } from "@agentq/core/testing";
import type postgres from "postgres";
import { createPgStores, PgTxRunner } from "../pg-stores.ts";
import { PgWakeupNotifier } from "../pg-wakeup-notifier.ts";

/**
 * Moves "now" forward by `ms` for everything stored in the connection's schema, the way the
 * messaging contract suites need it: the database clock cannot move, so every stored timestamp
 * of messages, idempotency keys, audit rows and outbox rows moves back by `ms` instead. Tests only.
 */
export async function shiftStoredTimesBack(sql: postgres.Sql, ms: number): Promise<void> {
  const by = sql`(${ms}::float8 * interval '1 millisecond')`;
  await sql.begin(async (tx) => {
    await tx`
      update messages set accepted_at = accepted_at - ${by}, expires_at = expires_at - ${by}, visible_at = visible_at - ${by},
        lease_claimed_at = lease_claimed_at - ${by}, last_extended_at = last_extended_at - ${by}, last_nacked_at = last_nacked_at - ${by},
        acknowledged_at = acknowledged_at - ${by}, dead_lettered_at = dead_lettered_at - ${by}`;
    await tx`update idempotency_keys set created_at = created_at - ${by}, expires_at = expires_at - ${by}`;
    await tx`update audit_log set occurred_at = occurred_at - ${by}`;
    await tx`update audit_unsealed set occurred_at = occurred_at - ${by}`;
    await tx`update audit_chain set sealed_at = sealed_at - ${by}`;
    await tx`
      update webhook_outbox set next_attempt_at = next_attempt_at - ${by}, created_at = created_at - ${by}, last_attempt_at = last_attempt_at - ${by},
        delivered_at = delivered_at - ${by}, dead_at = dead_at - ${by}`;
  });
}

/**
 * The MessagingHarness of the core's contract suites over PostgreSQL: pool-bound stores, a
 * PgTxRunner, one PgWakeupNotifier (real timers) and `advance` by shifting stored times.
 */
export function createPgMessagingHarness(sql: postgres.Sql, notifier: PgWakeupNotifier = new PgWakeupNotifier(sql)): MessagingHarness {
  return { stores: createPgStores(sql), tx: new PgTxRunner(sql), notifier, advance: (ms) => shiftStoredTimesBack(sql, ms) };
}
