// The one tokenizer of the text heuristics (SESSION-STATE §1: lower-case, split on
// non-alphanumerics, drop a fixed stop-word list) and Jaccard similarity over token sets. Pure;
// no language model.

const STOP_WORDS: ReadonlySet<string> = new Set(
  "a an and are as at be but by for from has have i if in into is it its of on or so than that the their then there these this to was we were will with you your not no do does did can should would could".split(" "),
);

/** Lower-cases `text`, splits it on non-alphanumerics and drops stop words. */
export function tokenize(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((t) => t.length > 0 && !STOP_WORDS.has(t));
}

/** Jaccard similarity of two token sets (0 when both are empty). */
export function jaccard(a: Iterable<string>, b: Iterable<string>): number {
  const sa = new Set(a);
  const sb = new Set(b);
  if (sa.size === 0 && sb.size === 0) return 0;
  let inter = 0;
  for (const t of sa) if (sb.has(t)) inter++;
  return inter / (sa.size + sb.size - inter);
}

/** The sorted, de-duplicated token set of `text` (tokens of at least three characters, not only digits). */
export function keywordSet(text: string): string[] {
  return [...new Set(tokenize(text).filter((t) => t.length >= 3 && !/^\d+$/.test(t)))].sort();
}
