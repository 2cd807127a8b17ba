import type { Clock } from "../ports.ts";

/**
 * A clock that moves only when told to: the time source of in-memory tests. Also keeps virtual
 * timers (`sleepUntil`) that fire when `advance`/`set` reaches them, so in-memory long polls
 * time out in virtual time without real sleeps.
 */
export class ManualClock implements Clock {
  private current: number;
  private timers: { at: number; fire: () => void }[] = [];

  constructor(start: Date = new Date("2026-01-01T00:00:00.000Z")) {
    this.current = start.getTime();
  }

  /** The current virtual instant. */
  now(): Date {
    return new Date(this.current);
  }

  /** Moves the clock forward by `ms` (never backward) and fires the timers that fall due. */
  advance(ms: number): void {
    if (ms < 0) throw new Error("ManualClock cannot move backward");
    this.set(new Date(this.current + ms));
  }

  /** Sets the clock to `at` (not earlier than now) and fires the timers that fall due. */
  set(at: Date): void {
    if (at.getTime() < this.current) throw new Error("ManualClock cannot move backward");
    this.current = at.getTime();
    const due = this.timers.filter((t) => t.at <= this.current);
    this.timers = this.timers.filter((t) => t.at > this.current);
    for (const t of due) t.fire();
  }

  /** Resolves once the clock reaches `at` (at once when it already has), or when `signal` aborts. */
  sleepUntil(at: Date, signal?: AbortSignal): Promise<void> {
    if (at.getTime() <= this.current || signal?.aborted) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = { at: at.getTime(), fire: () => resolve() };
      this.timers.push(timer);
      signal?.addEventListener("abort", () => {
        this.timers = this.timers.filter((t) => t !== timer);
        resolve();
      }, { once: true });
    });
  }

  /** How many virtual timers are waiting (lets tests wait for a long poll to park, without sleeps). */
  get pendingTimers(): number {
    return this.timers.length;
  }
}
