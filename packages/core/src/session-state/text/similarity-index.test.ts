import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { SimilarityIndex, tokenOrder } from "./similarity-index.ts";
import { jaccard } from "./tokens.ts";

// The similarity index answers exactly what comparing every pair answers (a property against
// the brute force); text-heuristics.test.ts shows what it bounds.

describe("similarity index", () => {
  it("finds exactly the sets at least as similar as the threshold, in the order they were added", () => {
    const words = fc.uniqueArray(fc.constantFrom("alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta"), { minLength: 1, maxLength: 6 });
    fc.assert(
      fc.property(fc.array(words, { maxLength: 40 }), words, fc.constantFrom(0.3, 0.6, 1), (sets, q, t) => {
        const index = new SimilarityIndex<number>(t, tokenOrder([...sets, q]));
        sets.forEach((s, i) => index.add(i, s));
        const brute = sets.map((s, i) => ({ id: i, similarity: jaccard(s, q) })).filter((x) => x.similarity >= t);
        expect(index.similar(q)).toEqual(brute);
      }),
      { numRuns: 500 },
    );
  });
});
