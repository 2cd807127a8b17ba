import type { CoreDeps } from "../deps.ts";

/** Messages marked per store call. */
const EXPIRY_BATCH = 500;

/**
 * One pass of the expiry sweep (background worker): marks pending and held messages past their
 * expiry as expired, each with a `message.expired` audit row, in batches until none remain or
 * `maxMessages` were marked. Returns how many it marked. Expiry is already effective without
 * the sweep (reads use the effective state and claims skip expired rows); the sweep records it.
 */
export async function expireDueMessages(deps: Pick<CoreDeps, "stores" | "ids" | "meter">, opts?: { maxMessages?: number }): Promise<number> {
  const maxMessages = opts?.maxMessages ?? 10_000;
  let total = 0;
  while (total < maxMessages) {
    const n = Math.min(EXPIRY_BATCH, maxMessages - total);
    const marked = await deps.stores.messages.expireDue({ auditIds: Array.from({ length: n }, () => deps.ids.next()) });
    total += marked;
    if (marked > 0) deps.meter?.count("expired", marked, null);
    if (marked < n) break;
  }
  return total;
}
