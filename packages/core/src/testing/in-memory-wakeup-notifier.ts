import type { WakeupNotifier } from "../ports.ts";
import type { ManualClock } from "./manual-clock.ts";

/**
 * In-process wake-ups for long polls. With a ManualClock, timeouts run in virtual time (they
 * fire when the clock is advanced past them); without one, on real timers.
 */
export class InMemoryWakeupNotifier implements WakeupNotifier {
  private readonly waiters = new Map<string, Set<() => void>>();
  /** Standing watches (`watchMessages`), apart from the parked long polls `waiting` counts. */
  private readonly watchers = new Map<string, Set<() => void>>();
  private readonly clock: ManualClock | null;

  constructor(opts?: { clock?: ManualClock }) {
    this.clock = opts?.clock ?? null;
  }

  waitForMessages(p: { workspaceId: string; recipientId: string; timeoutMs: number; signal?: AbortSignal }): Promise<void> {
    if (p.signal?.aborted || p.timeoutMs <= 0) return Promise.resolve();
    const key = `${p.workspaceId}/${p.recipientId}`;
    return new Promise<void>((resolve) => {
      let done = false;
      const abort = new AbortController();
      const finish = () => {
        if (done) return;
        done = true;
        this.waiters.get(key)?.delete(finish);
        if (this.waiters.get(key)?.size === 0) this.waiters.delete(key);
        abort.abort();
        resolve();
      };
      let set = this.waiters.get(key);
      if (!set) this.waiters.set(key, (set = new Set()));
      set.add(finish);
      p.signal?.addEventListener("abort", finish, { once: true, signal: abort.signal });
      if (this.clock) {
        void this.clock.sleepUntil(new Date(this.clock.now().getTime() + p.timeoutMs), abort.signal).then(finish);
      } else {
        const timer = setTimeout(finish, p.timeoutMs);
        abort.signal.addEventListener("abort", () => clearTimeout(timer), { once: true });
      }
    });
  }

  async notifyMessages(p: { workspaceId: string; recipientId: string }): Promise<void> {
    const key = `${p.workspaceId}/${p.recipientId}`;
    for (const wake of [...(this.waiters.get(key) ?? []), ...(this.watchers.get(key) ?? [])]) wake();
  }

  watchMessages(p: { workspaceId: string; recipientId: string; onWake: () => void }): () => void {
    const key = `${p.workspaceId}/${p.recipientId}`;
    // A fresh function per watch, so the same onWake watched twice is two watches.
    const wake = () => p.onWake();
    let set = this.watchers.get(key);
    if (!set) this.watchers.set(key, (set = new Set()));
    set.add(wake);
    return () => {
      this.watchers.get(key)?.delete(wake);
      if (this.watchers.get(key)?.size === 0) this.watchers.delete(key);
    };
  }

  /** How many long polls are parked (lets tests wait for a waiter without sleeping). */
  waiting(p: { workspaceId: string; recipientId: string }): number {
    return this.waiters.get(`${p.workspaceId}/${p.recipientId}`)?.size ?? 0;
  }

  /** How many standing watches the recipient has (`watchMessages`). */
  watching(p: { workspaceId: string; recipientId: string }): number {
    return this.watchers.get(`${p.workspaceId}/${p.recipientId}`)?.size ?? 0;
  }
}
