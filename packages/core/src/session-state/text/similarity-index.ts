// Finding keyword sets similar to a given one (Jaccard >= a threshold) without comparing it with
// every set held (DESIGN §2c: comparing every pair of a detection run was quadratic). Prefix
// filtering (Bayardo et al., "Scaling up all pairs similarity search"): under one total order of
// the tokens, two sets with Jaccard >= t share a token among the first |s| - ceil(t * |s|) + 1
// tokens of each; the sets are indexed by those tokens only, and the order puts the rarest tokens
// first, so a token that many sets share rarely lands in a prefix. Candidates are then checked
// exactly.

/**
 * Token ranks over the keyword sets (each without repeats) an index will hold and be asked about:
 * rarer first, ties in the order first seen. Linear (a counting sort).
 */
export function tokenOrder(sets: Iterable<readonly string[]>): Map<string, number> {
  const counts = new Map<string, number>();
  let most = 0;
  for (const s of sets) {
    for (const t of s) {
      const n = (counts.get(t) ?? 0) + 1;
      counts.set(t, n);
      if (n > most) most = n;
    }
  }
  const buckets: string[][] = Array.from({ length: most + 1 }, () => []);
  for (const [t, n] of counts) buckets[n]?.push(t);
  const order = new Map<string, number>();
  for (const bucket of buckets) for (const t of bucket) order.set(t, order.size);
  return order;
}

/** An index of keyword sets by id, answering which of them are at least `threshold` similar to a set. */
export class SimilarityIndex<Id> {
  private readonly postings = new Map<string, Id[]>();
  private readonly sets = new Map<Id, ReadonlySet<string>>();
  private readonly added = new Map<Id, number>();

  /**
   * @param threshold the Jaccard similarity asked for (0 < threshold <= 1).
   * @param order ranks of the tokens (tokenOrder); a token it does not rank comes first, by itself.
   */
  constructor(
    private readonly threshold: number,
    private readonly order: ReadonlyMap<string, number> = new Map(),
  ) {}

  private prefix(keywords: ReadonlySet<string>): string[] {
    const ranked = [...keywords].map((t) => ({ t, r: this.order.get(t) ?? -1 }));
    ranked.sort((a, b) => a.r - b.r || (a.t < b.t ? -1 : a.t > b.t ? 1 : 0));
    return ranked.slice(0, ranked.length - Math.ceil(this.threshold * ranked.length) + 1).map((x) => x.t);
  }

  /** Holds `keywords` under `id` (an id added twice keeps its first set). */
  add(id: Id, keywords: readonly string[]): void {
    if (this.sets.has(id) || keywords.length === 0) return;
    const set = new Set(keywords);
    this.sets.set(id, set);
    this.added.set(id, this.added.size);
    for (const t of this.prefix(set)) {
      const list = this.postings.get(t);
      if (list === undefined) this.postings.set(t, [id]);
      else list.push(id);
    }
  }

  /** The ids whose sets are at least `threshold` similar to `keywords`, with their similarity, in the order they were added. */
  similar(keywords: readonly string[]): { id: Id; similarity: number }[] {
    if (keywords.length === 0) return [];
    const q = new Set(keywords);
    const seen = new Set<Id>();
    const out: { id: Id; similarity: number; at: number }[] = [];
    for (const t of this.prefix(q)) {
      for (const id of this.postings.get(t) ?? []) {
        if (seen.has(id)) continue;
        seen.add(id);
        const s = this.sets.get(id);
        if (s === undefined) continue;
        let inter = 0;
        for (const x of q) if (s.has(x)) inter++;
        const similarity = inter / (q.size + s.size - inter);
        if (similarity >= this.threshold) out.push({ id, similarity, at: this.added.get(id) ?? 0 });
      }
    }
    return out.sort((a, b) => a.at - b.at).map(({ id, similarity }) => ({ id, similarity }));
  }
}
