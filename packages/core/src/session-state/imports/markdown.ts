import MarkdownIt from "markdown-it";

// Markdown structure for the import parsers (SESSION-STATE §10): markdown-it tokens give
// headings and list items with their line ranges; bodies are cut from the source lines.
// Everything here is linear in the file's size (DESIGN §2c): one pass over the tokens, section
// ends found with a stack, heading ranges found by binary search.

// Only the block structure is read: the inline rules (emphasis, links, code spans) and the block
// rules that never make a heading or a list item (tables, reference definitions, HTML blocks),
// which the parsers never look at, are off, and with them their cost on hostile text.
const md = new MarkdownIt({ html: false, linkify: false });
md.core.ruler.disable(["inline", "linkify", "replacements", "smartquotes", "text_join"]);
md.block.ruler.disable(["table", "reference", "html_block"]);

/** A heading: its level, text, 0-based line, the line after it (setext headings take two), and where its section ends. */
export interface Heading {
  level: number;
  text: string;
  line: number;
  after: number;
  /** The line of the next heading of the same or a higher level (the number of lines when there is none). */
  sectionEnd: number;
}

/** A list item: its nesting depth (1: top level), 0-based line range [start, end), first line's text. */
export interface ListItem {
  depth: number;
  start: number;
  end: number;
  text: string;
}

/** What the parsers read of a markdown text: headings and items in document order. */
export interface MarkdownOutline {
  lines: string[];
  headings: Heading[];
  items: ListItem[];
}

/** Parses `source` (CRLF normalized) into its headings and list items. */
export function outline(source: string): MarkdownOutline {
  const text = source.replace(/\r\n?/g, "\n");
  const lines = text.split("\n");
  const tokens = md.parse(text, {});
  const headings: Heading[] = [];
  const items: ListItem[] = [];
  // Items whose text is the next inline token's first line (an empty item takes the next one).
  let waiting: ListItem[] = [];
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t === undefined) continue;
    if (t.type === "bullet_list_open" || t.type === "ordered_list_open") depth++;
    else if (t.type === "bullet_list_close" || t.type === "ordered_list_close") depth--;
    else if (t.type === "heading_open" && t.map !== null) headings.push({ level: Number(t.tag.slice(1)), text: (tokens[i + 1]?.content ?? "").trim(), line: t.map[0], after: t.map[1], sectionEnd: lines.length });
    else if (t.type === "list_item_open" && t.map !== null) {
      const item = { depth, start: t.map[0], end: t.map[1], text: "" };
      items.push(item);
      waiting.push(item);
    } else if (t.type === "inline" && waiting.length > 0) {
      const first = firstLine(t.content).trim();
      for (const item of waiting) item.text = first;
      waiting = [];
    }
  }
  // Each heading's section ends at the next heading of the same or a higher level: one pass
  // with a stack of headings still open.
  const open: Heading[] = [];
  for (const h of headings) {
    while (open.length > 0 && (open[open.length - 1]?.level ?? 0) >= h.level) {
      const closed = open.pop();
      if (closed !== undefined) closed.sectionEnd = h.line;
    }
    open.push(h);
  }
  return { lines, headings, items };
}

function firstLine(s: string): string {
  const nl = s.indexOf("\n");
  return nl < 0 ? s : s.slice(0, nl);
}

/** Lines [start, end) with their common indentation removed, surrounding blank lines dropped. */
export function block(lines: readonly string[], start: number, end: number): string {
  let from = Math.max(0, start);
  let to = Math.min(end, lines.length);
  while (from < to && (lines[from] ?? "").trim() === "") from++;
  while (to > from && (lines[to - 1] ?? "").trim() === "") to--;
  let indent = Number.POSITIVE_INFINITY;
  for (let i = from; i < to; i++) {
    const l = lines[i] ?? "";
    if (l.trim() !== "") indent = Math.min(indent, l.length - l.trimStart().length);
  }
  const cut = Number.isFinite(indent) ? indent : 0;
  const out: string[] = [];
  for (let i = from; i < to; i++) out.push((lines[i] ?? "").slice(cut));
  return out.join("\n");
}

/** The index of the first element of the line-ordered `xs` whose line is >= `line`. */
export function firstAtOrAfter<T>(xs: readonly T[], lineOf: (x: T) => number, line: number): number {
  let lo = 0;
  let hi = xs.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (lineOf(xs[mid] as T) < line) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The sections under headings of `level` within lines [within.start, within.end) (up to the next
 * heading of that level or higher), with their body lines [start, end), in order; a generator, so
 * a caller that stops at a cap does no more work.
 */
export function* sections(o: MarkdownOutline, level: number, within: { start: number; end: number } = { start: 0, end: Number.MAX_SAFE_INTEGER }): Generator<{ heading: Heading; start: number; end: number }> {
  for (let i = firstAtOrAfter(o.headings, (h) => h.line, within.start); i < o.headings.length; i++) {
    const h = o.headings[i];
    if (h === undefined || h.line >= within.end) return;
    if (h.level === level) yield { heading: h, start: h.after, end: Math.min(h.sectionEnd, within.end, o.lines.length) };
  }
}
