import type { RateLimiter } from "../ports.ts";

/**
 * RateLimiter in this process's memory: the default for one server. Several processes each
 * count their own requests (N replicas allow N times the limit); use the PostgreSQL adapter
 * then. Windows older than the current one are dropped as windows advance.
 */
export class InProcessRateLimiter implements RateLimiter {
  private readonly counts = new Map<string, number>();
  private currentWindow = 0;

  async hit(p: { workspaceId: string; credentialId: string; windowStart: Date; cost: number }): Promise<{ credential: number; workspace: number }> {
    const w = this.advance(p.windowStart);
    return { credential: this.add(`${w}|c|${p.credentialId}`, p.cost), workspace: this.add(`${w}|w|${p.workspaceId}`, p.cost) };
  }

  // Windows older than the current one are dropped as windows advance.
  private advance(windowStart: Date): number {
    const w = windowStart.getTime();
    if (w > this.currentWindow) {
      for (const key of this.counts.keys()) if (Number(key.slice(0, key.indexOf("|"))) < w) this.counts.delete(key);
      this.currentWindow = w;
    }
    return w;
  }

  async purgeBefore(p: { before: Date }): Promise<number> {
    let n = 0;
    for (const key of this.counts.keys()) {
      if (Number(key.slice(0, key.indexOf("|"))) < p.before.getTime()) {
        this.counts.delete(key);
        n++;
      }
    }
    return n;
  }

  private add(key: string, cost: number): number {
    const next = (this.counts.get(key) ?? 0) + cost;
    this.counts.set(key, next);
    return next;
  }
}
