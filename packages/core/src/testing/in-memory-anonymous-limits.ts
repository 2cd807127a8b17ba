import type { AnonymousLimitStore } from "../ports.ts";

/**
 * In-memory AnonymousLimitStore: one counter per bucket and key. A hit counts at once, inside a
 * transaction or not (the port says to call it outside one), and is atomic by construction: no
 * await between reading and writing the counter.
 */
export class InMemoryAnonymousLimitStore implements AnonymousLimitStore {
  private readonly counters = new Map<string, { count: number; windowEndsAt: Date }>();

  async hit(p: { bucket: string; key: string; now: Date; windowMs: number; cost: number }): Promise<{ count: number; windowEndsAt: Date }> {
    const id = `${p.bucket}\u0000${p.key}`;
    const current = this.counters.get(id);
    const next = current === undefined || current.windowEndsAt.getTime() <= p.now.getTime() ? { count: p.cost, windowEndsAt: new Date(p.now.getTime() + p.windowMs) } : { count: current.count + p.cost, windowEndsAt: current.windowEndsAt };
    this.counters.set(id, next);
    return { count: next.count, windowEndsAt: new Date(next.windowEndsAt) };
  }

  async purgeBefore(p: { before: Date }): Promise<number> {
    let n = 0;
    for (const [id, c] of this.counters) {
      if (c.windowEndsAt.getTime() < p.before.getTime()) {
        this.counters.delete(id);
        n++;
      }
    }
    return n;
  }
}
