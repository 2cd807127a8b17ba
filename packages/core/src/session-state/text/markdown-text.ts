import { RE2JS } from "re2js";
import { tokenize } from "./tokens.ts";

// Markdown as plain text: one-line summaries and search excerpts. Linear in the text's length.

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
