import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex, utf8ToBytes } from "@noble/hashes/utils.js";
import { RE2JS } from "re2js";

// Text heuristics shared by the session-state areas (SESSION-STATE §1): one tokenizer, slugs,
// one-line summaries, Jaccard similarity. Pure; no language model.

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

/** A slug derived from a title: lower-case ASCII letters and digits joined by single hyphens, at most 64 characters ("project" when nothing is left). */
export function slugify(text: string): string {
  const base = text
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64)
    .replace(/-+$/g, "");
  return base.length === 0 ? "project" : base;
}

// Images and links: RE2 (linear). A backtracking engine retries `[^\]]*` from every "[" (and
// `[^)]*` from every "](") of a text that never closes them: quadratic in the text's length.
const IMAGE = RE2JS.compile("!\\[([^\\]]*)\\]\\([^)]*\\)");
const LINK = RE2JS.compile("\\[([^\\]]*)\\]\\([^)]*\\)");
const replaceAll = (re: RE2JS, text: string, replacement: string) => (text.includes("](") ? re.matcher(text).replaceAll(replacement) : text);

/** Markdown reduced to plain text: code fences, inline code marks, emphasis, links, headings and list marks removed. Linear in the text's length. */
export function stripMarkdown(md: string): string {
  return replaceAll(LINK, replaceAll(IMAGE, md.replace(/```[\s\S]*?```/g, " "), "$1"), "$1")
    .replace(/^\s{0,3}(#{1,6}|>|[-*+]|\d+[.)])\s+/gm, "")
    .replace(/[`*_~]+/g, "")
    .replace(/\s+/g, " ")
    .trim();
}

/** The first sentence of `md` as plain text, at most `max` characters (cut at a word, with an ellipsis). */
export function oneLine(md: string, max = 200): string {
  const plain = stripMarkdown(md);
  const end = /[.!?](\s|$)/.exec(plain);
  const sentence = end === null ? plain : plain.slice(0, end.index + 1);
  if (sentence.length <= max) return sentence;
  const cut = sentence.slice(0, max - 1);
  const space = cut.lastIndexOf(" ");
  return `${(space > max / 2 ? cut.slice(0, space) : cut).trimEnd()}…`;
}

/**
 * An excerpt of `text` around the first of `terms` it contains (whole tokens, case-insensitive),
 * every occurrence of a term wrapped in `**`; about `words` words long.
 */
export function highlight(text: string, terms: readonly string[], words = 24): string {
  const wanted = new Set(terms.map((t) => t.toLowerCase()));
  const parts = stripMarkdown(text).split(" ").filter((p) => p.length > 0);
  const isHit = (w: string) => tokenize(w).some((t) => wanted.has(t));
  const first = parts.findIndex(isHit);
  const start = Math.max(0, (first < 0 ? 0 : first) - Math.floor(words / 3));
  return parts
    .slice(start, start + words)
    .map((w) => (isHit(w) ? `**${w}**` : w))
    .join(" ");
}

/** SHA-256 of UTF-8 text, lower-case hex. */
export function sha256Hex(text: string): string {
  return bytesToHex(sha256(utf8ToBytes(text)));
}

/** The sorted, de-duplicated token set of `text` (tokens of at least three characters, not only digits). */
export function keywordSet(text: string): string[] {
  return [...new Set(tokenize(text).filter((t) => t.length >= 3 && !/^\d+$/.test(t)))].sort();
}
