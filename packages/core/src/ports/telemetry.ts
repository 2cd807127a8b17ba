// Telemetry: what the core tells an observer once a write committed (the metrics adapter counts
// it). Every port's general rules: src/ports.ts.

/**
 * A messaging event the core reports, once its write committed (DESIGN §2c Telemetry):
 * `sent` (a send accepted), `claimed` (a message leased to its recipient), `acknowledged`,
 * `nacked`, `expired` (the expiry sweep), `dead_lettered` (a claim found the deliveries spent).
 */
export type MessagingEvent = "sent" | "claimed" | "acknowledged" | "nacked" | "expired" | "dead_lettered";

/**
 * Counts messaging events. The core calls `count` only after the write that made the event
 * committed (never for a refused or rolled-back write), so a counter never counts what did not
 * happen. Must not throw and must not block: it is called on the request path.
 */
export interface MessageMeter {
  /** `n` events of `event` in `workspaceId` (null for a sweep across workspaces) just committed. */
  count(event: MessagingEvent, n: number, workspaceId: string | null): void;
}

/** One workspace's minute of the minute series (DESIGN §2c Telemetry: history for people). */
export interface MinuteStats {
  /** The minute's start (seconds and below zero). */
  minute: Date;
  /** Messages sent, acknowledged and dead-lettered during the minute. */
  sent: number;
  acknowledged: number;
  deadLettered: number;
  /** Pending messages when the minute was recorded, and the oldest one's age in seconds (0 when none). */
  pending: number;
  oldestPendingAgeSeconds: number;
}

/**
 * The per-workspace minute series, written by the background work and read by the dashboard's
 * charts and GET /v1/workspaces/me/stats.
 */
export interface StatsStore {
  /**
   * Writes the last two whole minutes (by the store's clock) of every workspace, and of every
   * recipient, with activity:
   * the events counted from the audit rows of those minutes (recounted, so a row committed late
   * is still counted and a second writer changes nothing), and the queue's depth and lag now
   * into the last whole minute (the same reading as the metrics gauges). Idempotent; any number
   * of processes may run it. Returns how many minute rows it wrote.
   */
  recordMinutes(): Promise<number>;
  /**
   * The workspace's stored minutes with `minute >= from`, oldest first (at most 1,440 + 2 rows);
   * with `aiAccountId`, that recipient's series (messages sent to it, acknowledged by it,
   * dead-lettered from its queue, what waits for it), written by the same pass.
   */
  listMinutes(p: { workspaceId: string; from: Date; aiAccountId?: string | null }): Promise<MinuteStats[]>;
  /** Deletes the minutes before `before` (the 14-day retention); returns how many went. */
  purgeBefore(p: { before: Date }): Promise<number>;
}
