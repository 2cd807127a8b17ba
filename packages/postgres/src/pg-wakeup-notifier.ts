import type { WakeupNotifier } from "@agentq/core";
import type postgres from "postgres";
import { withPgErrors } from "./pg-errors.ts";
import { WAKEUP_CHANNEL } from "./queries/messages.ts";

/** How long a waiter sleeps at most between looks when no notification comes (the slow fallback poll). */
export const WAKEUP_FALLBACK_MS = 2_000;

/**
 * WakeupNotifier on LISTEN/NOTIFY. One listening connection per notifier (create one per
 * process): postgres.js `sql.listen` keeps a dedicated connection and re-LISTENs after a
 * reconnect. Waiters are kept in memory keyed by workspace and recipient. Every wait also ends
 * after at most `fallbackMs` (default 2 s), so messages that become claimable without a
 * notification (a delayed delivery coming due, a lease running out, a notification lost while
 * reconnecting) are noticed by the caller's next claim: a slow fallback poll, never a tight loop.
 * Senders notify with pg_notify inside their statements (delivered at commit) or through
 * `notifyMessages`, which reaches the waiters of every process listening on the database.
 * Standing watches (`watchMessages`, the MCP inbox subscriptions) hear the same notifications,
 * and are all told once after the LISTEN connection comes back from a loss.
 */
export class PgWakeupNotifier implements WakeupNotifier {
  private readonly waiters = new Map<string, Set<() => void>>();
  /** Standing watches (`watchMessages`), by the same key. */
  private readonly watchers = new Map<string, Set<() => void>>();
  private listening: Promise<postgres.ListenMeta> | null = null;
  /** LISTEN became active at least once: a later activation is a reconnect, after which notifications may have been missed. */
  private listenedBefore = false;
  private readonly fallbackMs: number;

  constructor(
    private readonly sql: postgres.Sql,
    options: { fallbackMs?: number } = {},
  ) {
    this.fallbackMs = options.fallbackMs ?? WAKEUP_FALLBACK_MS;
  }

  /** Starts listening (idempotent; waits also start it). Resolves once LISTEN is active; rejects when the database cannot be reached. */
  async start(): Promise<void> {
    this.listening ??= this.sql.listen(
      WAKEUP_CHANNEL,
      (payload) => this.wake(payload),
      () => {
        // postgres.js calls this on every activation of the LISTEN, a re-LISTEN after a lost
        // connection included: what was notified meanwhile is lost, so every watch is told.
        if (this.listenedBefore) for (const set of this.watchers.values()) for (const wake of [...set]) wake();
        this.listenedBefore = true;
      },
    );
    try {
      await this.listening;
    } catch (e) {
      this.listening = null;
      throw e;
    }
  }

  /** Stops listening and wakes every waiter. */
  async close(): Promise<void> {
    const listening = this.listening;
    this.listening = null;
    for (const set of this.waiters.values()) for (const wake of [...set]) wake();
    if (listening) await listening.then((meta) => meta.unlisten()).catch(() => undefined);
  }

  waitForMessages(p: { workspaceId: string; recipientId: string; timeoutMs: number; signal?: AbortSignal }): Promise<void> {
    if (p.signal?.aborted || p.timeoutMs <= 0) return Promise.resolve();
    // Without a listening connection the wait still ends by the fallback timer.
    this.start().catch(() => undefined);
    const key = keyOf(p.workspaceId, p.recipientId);
    return new Promise<void>((resolve) => {
      let set = this.waiters.get(key);
      if (!set) this.waiters.set(key, (set = new Set()));
      const waiters = set;
      const finish = () => {
        clearTimeout(timer);
        p.signal?.removeEventListener("abort", finish);
        waiters.delete(finish);
        if (waiters.size === 0 && this.waiters.get(key) === waiters) this.waiters.delete(key);
        resolve();
      };
      const timer = setTimeout(finish, Math.min(p.timeoutMs, this.fallbackMs));
      waiters.add(finish);
      p.signal?.addEventListener("abort", finish, { once: true });
    });
  }

  watchMessages(p: { workspaceId: string; recipientId: string; onWake: () => void }): () => void {
    this.start().catch(() => undefined);
    const key = keyOf(p.workspaceId, p.recipientId);
    const wake = () => p.onWake();
    let set = this.watchers.get(key);
    if (!set) this.watchers.set(key, (set = new Set()));
    set.add(wake);
    return () => {
      const current = this.watchers.get(key);
      current?.delete(wake);
      if (current?.size === 0) this.watchers.delete(key);
    };
  }

  notifyMessages(p: { workspaceId: string; recipientId: string }): Promise<void> {
    return withPgErrors(async () => {
      await this.sql`select pg_notify(${WAKEUP_CHANNEL}, ${keyOf(p.workspaceId, p.recipientId)})`;
    });
  }

  private wake(payload: string): void {
    for (const wake of [...(this.waiters.get(payload) ?? []), ...(this.watchers.get(payload) ?? [])]) wake();
  }
}

/** The notification payload and waiter key: `<workspace id>:<recipient id>` (the same text the send statement builds). */
function keyOf(workspaceId: string, recipientId: string): string {
  return `${workspaceId}:${recipientId}`;
}
