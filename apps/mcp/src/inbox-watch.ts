import type { CoreDeps, WatchedRecipient } from "@agentq/core";

/** How often the watch looks for messages that became claimable by time passing, at most (the long polls' fallback poll: 2 s). */
export const INBOX_TICK_MS = 2_000;
/** Rows per recipient the timed look examines, in claim order (MessageStore.becameClaimable). */
export const INBOX_SCAN_LIMIT = 1_000;
/** Recipients per statement of the timed look (the store's bound). */
const RECIPIENTS_PER_LOOK = 1_000;

/** Options of the inbox watch. */
export interface InboxWatchOptions {
  /** Longest gap between two timed looks (default INBOX_TICK_MS). */
  tickMs?: number;
  /** Rows per recipient a timed look examines (default INBOX_SCAN_LIMIT). */
  scanLimit?: number;
  /** Told when a timed look fails (the database is away); the next look covers the gap. */
  onError?: (error: unknown) => void;
}

interface Watched {
  recipient: WatchedRecipient;
  listeners: Set<() => void>;
  stopWake: () => void;
}

/**
 * This process's watch of the recipients whose inbox some MCP session subscribed to: calls
 * each listener of a recipient when a message may have become claimable for it.
 *
 * Two sources, one per way a message becomes claimable:
 * - a write that makes it claimable at once (a send, a nack without delay, a release, a
 *   restoration, and later an approval or a hand-off: every such statement runs `pg_notify` on
 *   the wake-up channel) reaches the listeners at once through `deps.notifier.watchMessages`,
 *   the same LISTEN/NOTIFY wake-ups long polls use, from whichever process wrote it;
 * - time passing (a lease running out, a nack's redelivery delay or a send's deliver_after
 *   ending) notifies nobody, so a timed look (`MessageStore.becameClaimable`, one statement for
 *   up to 1,000 watched recipients) runs at the earliest such moment it knows of, and at least
 *   every `tickMs`: a moment known at the previous look is met on time; one created since
 *   (a claim or a delayed nack made meanwhile, on any process) is met at most `tickMs` late.
 * Nothing runs while nobody is watched. Listeners must not throw.
 */
export class InboxWatch {
  private readonly watched = new Map<string, Watched>();
  private readonly tickMs: number;
  private readonly scanLimit: number;
  /** The store's clock at the end of the last timed look: the next one reports what came due after it. */
  private lookedAt: Date | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private looking = false;
  private closed = false;

  constructor(
    private readonly deps: Pick<CoreDeps, "notifier" | "stores">,
    private readonly options: InboxWatchOptions = {},
  ) {
    this.tickMs = options.tickMs ?? INBOX_TICK_MS;
    this.scanLimit = options.scanLimit ?? INBOX_SCAN_LIMIT;
  }

  /** Calls `listener` whenever a message may have become claimable for `recipient`, until the returned function is called. */
  watch(recipient: WatchedRecipient, listener: () => void): () => void {
    if (this.closed) return () => undefined;
    const key = `${recipient.workspaceId}:${recipient.recipientId}`;
    let entry = this.watched.get(key);
    if (entry === undefined) {
      const listeners = new Set<() => void>();
      const stopWake = this.deps.notifier.watchMessages({ ...recipient, onWake: () => this.tell(listeners) });
      entry = { recipient: { workspaceId: recipient.workspaceId, recipientId: recipient.recipientId }, listeners, stopWake };
      this.watched.set(key, entry);
    }
    // A fresh function per watch, so one listener watched twice is two watches.
    const own = () => listener();
    entry.listeners.add(own);
    this.schedule(0);
    const watched = entry;
    return () => {
      watched.listeners.delete(own);
      if (watched.listeners.size === 0 && this.watched.get(key) === watched) {
        this.watched.delete(key);
        watched.stopWake();
      }
    };
  }

  /** How many recipients are watched (for tests and metrics). */
  get size(): number {
    return this.watched.size;
  }

  /** Stops every watch and the timed looks. */
  close(): void {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    for (const entry of this.watched.values()) entry.stopWake();
    this.watched.clear();
  }

  private tell(listeners: ReadonlySet<() => void>): void {
    for (const listener of [...listeners]) listener();
  }

  /** Arms the next timed look in `delayMs` unless one is armed or running, or nothing is watched. */
  private schedule(delayMs: number): void {
    if (this.closed || this.looking || this.watched.size === 0) return;
    if (this.timer !== null) {
      if (delayMs > 0) return;
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => void this.look(), delayMs);
    this.timer.unref?.();
  }

  private async look(): Promise<void> {
    this.timer = null;
    if (this.closed || this.watched.size === 0) {
      // Nobody watches: the next watch starts a fresh window (what came due meanwhile concerned no one).
      this.lookedAt = null;
      return;
    }
    this.looking = true;
    let nextDelayMs = this.tickMs;
    try {
      this.lookedAt ??= await this.deps.stores.messages.now();
      const recipients = [...this.watched.values()].map((w) => w.recipient);
      let now: Date | null = null;
      let nextAt: Date | null = null;
      for (let i = 0; i < recipients.length; i += RECIPIENTS_PER_LOOK) {
        const r = await this.deps.stores.messages.becameClaimable({ recipients: recipients.slice(i, i + RECIPIENTS_PER_LOOK), after: this.lookedAt, scanLimit: this.scanLimit });
        now ??= r.now;
        if (r.nextAt !== null && (nextAt === null || r.nextAt < nextAt)) nextAt = r.nextAt;
        for (const due of r.due) {
          const entry = this.watched.get(`${due.workspaceId}:${due.recipientId}`);
          if (entry !== undefined) this.tell(entry.listeners);
        }
      }
      if (now !== null) {
        this.lookedAt = now;
        // The known moment, measured on the store's clock (no skew with this process's clock).
        if (nextAt !== null) nextDelayMs = Math.min(this.tickMs, Math.max(1, nextAt.getTime() - now.getTime()));
      }
    } catch (error) {
      // lookedAt stays: the next look reports what came due during the outage too.
      this.options.onError?.(error);
    } finally {
      this.looking = false;
    }
    this.schedule(nextDelayMs);
  }
}
