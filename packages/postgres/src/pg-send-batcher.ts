import { isUnavailable } from "./pg-errors.ts";
import { messagesAcceptSend, messagesAcceptSends, type AcceptSendItem, type AcceptSendOutcome } from "./queries/messages.ts";
import type { SqlClient } from "./sql-client.ts";

/** Most sends one statement carries. */
const MAX_BATCH = 100;
/** Batch statements in flight at once (the pool's other connections stay free for claims, acks and reads). */
const MAX_IN_FLIGHT = 2;

interface Waiting {
  item: AcceptSendItem;
  resolve: (outcome: AcceptSendOutcome) => void;
  reject: (error: unknown) => void;
}

function keyOf(item: AcceptSendItem): string | null {
  const k = item.idempotency;
  return k === null ? null : JSON.stringify([k.workspaceId, k.accountId, k.key]);
}

/**
 * Group commit of sends (docs/performance.md lever 5): concurrent `acceptSend`s of one pool are
 * coalesced into one multi-row statement (`messagesAcceptSends`) and so one commit. A send waits
 * only for the next turn of the event loop when no batch is in flight (`setImmediate`: well
 * under a millisecond), else until one of the `MAX_IN_FLIGHT` batches in flight returns; then
 * everything waiting (up to 100) goes in one statement. Each send still gets its own outcome,
 * exactly as `messagesAcceptSend` would give it: the statement checks and writes row by row.
 * Two sends with the same idempotency key never share a statement (the later one goes in the
 * next; its key insert then waits for the first to commit and sees it, as concurrent single
 * statements would). When a batch
 * statement fails for another reason than an unavailable database, its sends are tried one by
 * one, so one bad send cannot fail the others.
 */
export class SendBatcher {
  private readonly waiting: Waiting[] = [];
  private inFlight = 0;
  private scheduled = false;
  /** Statements run so far (for tests and diagnosis): fewer than sends when sends were coalesced. */
  statements = 0;

  constructor(private readonly sql: SqlClient) {}

  /** The outcome of one send, written together with the sends that arrive alongside it. */
  submit(item: AcceptSendItem): Promise<AcceptSendOutcome> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.inFlight >= MAX_IN_FLIGHT || this.waiting.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < MAX_IN_FLIGHT && this.waiting.length > 0) {
      const batch: Waiting[] = [];
      const keys = new Set<string>();
      const rest: Waiting[] = [];
      for (const w of this.waiting) {
        const key = keyOf(w.item);
        if (batch.length >= MAX_BATCH || (key !== null && keys.has(key))) {
          rest.push(w);
          continue;
        }
        if (key !== null) keys.add(key);
        batch.push(w);
      }
      this.waiting.splice(0, this.waiting.length, ...rest);
      this.inFlight++;
      void this.run(batch).finally(() => {
        this.inFlight--;
        this.schedule();
      });
    }
  }

  private async run(batch: Waiting[]): Promise<void> {
    this.statements++;
    if (batch.length === 1) {
      const only = batch[0] as Waiting;
      await messagesAcceptSend(this.sql, only.item).then(only.resolve, only.reject);
      return;
    }
    let outcomes: AcceptSendOutcome[];
    try {
      outcomes = await messagesAcceptSends(this.sql, batch.map((w) => w.item));
    } catch (e) {
      if (isUnavailable(e)) {
        for (const w of batch) w.reject(e);
        return;
      }
      // One send may have made the statement fail: each on its own, so only that one fails.
      await Promise.all(batch.map((w) => messagesAcceptSend(this.sql, w.item).then(w.resolve, w.reject)));
      return;
    }
    batch.forEach((w, i) => w.resolve(outcomes[i] as AcceptSendOutcome));
  }
}
