import MarkdownIt from "markdown-it";

// Markdown structure for the import parsers (SESSION-STATE §10): markdown-it tokens give
// headings and list items with their line ranges; bodies are cut from the source lines.

const md = new MarkdownIt({ html: false, linkify: false });

/** A heading: its level, text, 0-based line and the line after it (setext headings take two). */
export interface Heading {
  level: number;
  text: string;
  line: number;
  after: number;
}

/** A list item: its nesting depth (1: top level), 0-based line range [start, end), first line's text. */
export interface ListItem {
  depth: number;
  start: number;
  end: number;
  text: string;
}

/** What the parsers read of a markdown text. */
export interface MarkdownOutline {
  lines: string[];
  headings: Heading[];
  items: ListItem[];
}

/** Parses `source` (CRLF normalized) into its headings and list items. */
export function outline(source: string): MarkdownOutline {
  const text = source.replace(/\r\n?/g, "\n");
  const tokens = md.parse(text, {});
  const headings: Heading[] = [];
  const items: ListItem[] = [];
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t === undefined) continue;
    if (t.type === "bullet_list_open" || t.type === "ordered_list_open") depth++;
    else if (t.type === "bullet_list_close" || t.type === "ordered_list_close") depth--;
    else if (t.type === "heading_open" && t.map !== null) headings.push({ level: Number(t.tag.slice(1)), text: (tokens[i + 1]?.content ?? "").trim(), line: t.map[0], after: t.map[1] });
    else if (t.type === "list_item_open" && t.map !== null) {
      const inline = tokens.slice(i + 1).find((x) => x.type === "inline");
      items.push({ depth, start: t.map[0], end: t.map[1], text: (inline?.content ?? "").split("\n")[0]?.trim() ?? "" });
    }
  }
  return { lines: text.split("\n"), headings, items };
}

/** Lines [start, end) with their common indentation removed, surrounding blank lines dropped. */
export function block(lines: readonly string[], start: number, end: number): string {
  const slice = lines.slice(start, end);
  while (slice.length > 0 && (slice[0] ?? "").trim() === "") slice.shift();
  while (slice.length > 0 && (slice[slice.length - 1] ?? "").trim() === "") slice.pop();
  const indent = Math.min(...slice.filter((l) => l.trim() !== "").map((l) => /^\s*/.exec(l)?.[0].length ?? 0));
  return slice.map((l) => l.slice(Number.isFinite(indent) ? indent : 0)).join("\n");
}

/** The sections under headings of `level` (up to the next heading of that level or higher), with their body lines [start, end). */
export function sections(o: MarkdownOutline, level: number, within: { start: number; end: number } = { start: 0, end: Number.MAX_SAFE_INTEGER }): { heading: Heading; start: number; end: number }[] {
  const hs = o.headings.filter((h) => h.line >= within.start && h.line < within.end);
  const out: { heading: Heading; start: number; end: number }[] = [];
  hs.forEach((h, i) => {
    if (h.level !== level) return;
    const next = hs.slice(i + 1).find((x) => x.level <= level);
    out.push({ heading: h, start: h.after, end: Math.min(next?.line ?? o.lines.length, within.end, o.lines.length) });
  });
  return out;
}
