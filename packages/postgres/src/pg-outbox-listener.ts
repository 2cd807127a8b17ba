import type postgres from "postgres";
import { OUTBOX_CHANNEL } from "./queries/messages.ts";

/**
 * Subscribes `onDeliveries` to the outbox channel: called when a committed send queued webhook
 * deliveries (the send statement notifies at commit), and each time the listening connection is
 * (re-)established, since notifications sent while it was down are lost. Uses the pool's one
 * dedicated LISTEN connection (postgres.js `sql.listen`, which re-LISTENs after a reconnect).
 * Returns the unsubscriber. Never rejects: when LISTEN cannot start, the caller's fallback poll
 * still finds the deliveries.
 */
export function listenForOutboxDeliveries(sql: postgres.Sql, onDeliveries: () => void): () => Promise<void> {
  const listening = sql.listen(OUTBOX_CHANNEL, () => onDeliveries(), () => onDeliveries()).catch(() => null);
  return async () => {
    const meta = await listening;
    await meta?.unlisten().catch(() => undefined);
  };
}
