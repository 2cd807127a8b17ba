import { RE2JS } from "re2js";
import { tokenize } from "../text/tokens.ts";
import { block, firstAtOrAfter, outline, sections, type Heading, type ListItem, type MarkdownOutline } from "./markdown.ts";
import type { ImportParser, ParsedRow } from "./parser.ts";

// MADR 4.0 records (https://adr.github.io/madr/): front matter (status, date), `# Title`,
// `## Context and Problem Statement`, `## Decision Drivers`, `## Considered Options`,
// `## Decision Outcome` ("Chosen option: "X", because ...", `### Consequences` with
// "Good, because" / "Bad, because" lines). A file may hold several records (each from its front
// matter or its `# Title`); a record whose status says "superseded by <ref>" naming another record
// of the file makes that record a correction of it.

const FRONT_MATTER = /^---\s*$/;
const NUMBER = /^(?:ADR[-\s]?)?(\d{1,5})(?:\s*[-.:)]\s*|\s+)/i;
// RE2 (linear): a backtracking engine takes quadratic time on "chosen option:" and a long run of spaces.
const CHOSEN = RE2JS.compile('chosen option:\\s*"?([^",]+?)"?\\s*(?:,\\s*because\\s*(.*))?$', RE2JS.CASE_INSENSITIVE);
const CHOSEN_HINT = /chosen option:/i;
// RE2 (linear): a backtracking engine takes quadratic time on many "[" or "](" without a close.
const LINK = RE2JS.compile("\\[([^\\]]*)\\]\\([^)]*\\)");
const FIELD_LINE = (label: string) => new RegExp(`^\\s*(?:[-*]\\s*)?\\*{0,2}${label}\\*{0,2}\\s*:\\s*(.*)$`, "i");
const STATUS_LINE = FIELD_LINE("status");
const DATE_LINE = FIELD_LINE("date");
const ACCEPTED = ["accepted", "superseded", ""];

interface RawRecord {
  start: number;
  end: number;
  meta: Record<string, string>;
}

/** Front matter blocks blanked out (line numbers kept) and read as `key: value`; one pass over the lines. */
function stripFrontMatter(content: string): { text: string; blocks: { line: number; end: number; meta: Record<string, string> }[] } {
  const lines = content.replace(/\r\n?/g, "\n").split("\n");
  const blocks: { line: number; end: number; meta: Record<string, string> }[] = [];
  // The next fence line after each line (-1: none), so that finding a block's close costs nothing.
  const nextFence = new Array<number>(lines.length).fill(-1);
  for (let i = lines.length - 2, next = -1; i >= 0; i--) {
    if (FRONT_MATTER.test(lines[i + 1] ?? "")) next = i + 1;
    nextFence[i] = next;
  }
  for (let i = 0; i < lines.length; i++) {
    if (!FRONT_MATTER.test(lines[i] ?? "") || (i > 0 && (lines[i - 1] ?? "").trim() !== "")) continue;
    const close = nextFence[i] ?? -1;
    if (close < 0) continue;
    let keyed = true;
    for (let j = i + 1; j < close && keyed; j++) keyed = (lines[j] ?? "").trim() === "" || /^[\w-]+\s*:/.test(lines[j] ?? "");
    if (!keyed) continue;
    const meta: Record<string, string> = {};
    for (let j = i + 1; j < close; j++) {
      const m = /^([\w-]+)\s*:\s*(.*)$/.exec(lines[j] ?? "");
      if (m) meta[(m[1] ?? "").toLowerCase()] = (m[2] ?? "").trim().replace(/^["']|["']$/g, "");
    }
    blocks.push({ line: i, end: close + 1, meta });
    for (let j = i; j <= close; j++) lines[j] = "";
    i = close;
  }
  return { text: lines.join("\n"), blocks };
}

const plain = (s: string) => s.replace(/[*_`]/g, "").trim();
/** The items that start at or after `start` and end by `end` (items are in document order: found by binary search). */
function itemsWithin(o: MarkdownOutline, start: number, end: number): ListItem[] {
  const out: ListItem[] = [];
  for (let i = firstAtOrAfter(o.items, (it) => it.start, start); i < o.items.length; i++) {
    const it = o.items[i];
    if (it === undefined || it.start >= end) break;
    if (it.end <= end) out.push(it);
  }
  return out;
}

/** The headings on lines [start, end). */
function headingsWithin(o: MarkdownOutline, start: number, end: number): Heading[] {
  const out: Heading[] = [];
  for (let i = firstAtOrAfter(o.headings, (h) => h.line, start); i < o.headings.length; i++) {
    const h = o.headings[i];
    if (h === undefined || h.line >= end) break;
    out.push(h);
  }
  return out;
}

const bullets = (o: MarkdownOutline, start: number, end: number) => itemsWithin(o, start, end).filter((it) => it.depth === 1).map((it) => plain(it.text));

function field(o: MarkdownOutline, start: number, end: number, re: RegExp): string | null {
  for (let i = start; i < Math.min(end, o.lines.length); i++) {
    const m = re.exec(o.lines[i] ?? "");
    if (m) return plain(m[1] ?? "");
  }
  return null;
}

/** decisions-madr: MADR records, one decision each; "superseded by" inside the file makes a correction. */
export const DECISIONS_MADR: ImportParser = {
  name: "decisions-madr",
  version: 1,
  target: "decision",
  description: "MADR decision records (one or more per file): title, context, considered options, decision outcome, consequences; a record \"superseded by\" another of the file makes that one a correction.",
  example: '---\nstatus: accepted\ndate: 2026-03-01\n---\n# Use PostgreSQL for the queue\n\n## Context and Problem Statement\nWe need a durable queue.\n\n## Considered Options\n* PostgreSQL\n* Redis\n\n## Decision Outcome\nChosen option: "PostgreSQL", because SKIP LOCKED is enough.\n',
  parse(content, _filename, maxRows = Number.MAX_SAFE_INTEGER) {
    const { text, blocks } = stripFrontMatter(content);
    const o = outline(text);
    const h1 = o.headings.filter((h) => h.level === 1);
    // Each record is one `# Title`: past the cap, the caller refuses the file, so no more are read.
    const count = Math.min(h1.length, maxRows + 1);
    // One pass over the front matter blocks: block b lies between h1[k - 1] and h1[k]; the last
    // such block ending by h1[k] opens record k, the first one opens the record after h1[k - 1].
    const opening = new Array<(typeof blocks)[number] | undefined>(count).fill(undefined);
    const closing = new Array<(typeof blocks)[number] | undefined>(count).fill(undefined);
    let k = 0;
    for (const b of blocks) {
      while (k < h1.length && (h1[k]?.line ?? 0) < b.line) k++;
      const h = h1[k];
      if (k < count && h !== undefined && b.end <= h.line) opening[k] = b;
      if (k - 1 >= 0 && k - 1 < count && h !== undefined && b.end <= h.line && closing[k - 1] === undefined) closing[k - 1] = b;
    }
    const records: (RawRecord & { title: string; titleLine: number })[] = h1.slice(0, count).map((h, i) => {
      const next = h1[i + 1];
      const fm = opening[i];
      const nextFm = next === undefined ? undefined : closing[i];
      return { start: fm?.line ?? h.line, end: nextFm?.line ?? next?.line ?? o.lines.length, meta: fm?.meta ?? {}, title: h.text, titleLine: h.line };
    });
    const refs = records.map((r) => ({ number: NUMBER.exec(r.title)?.[1] ?? null, title: r.title.replace(NUMBER, "").trim() }));
    const rows = records.map((r, index): ParsedRow => {
      const title = refs[index]?.title ?? r.title;
      const bodyStart = r.titleLine + 1;
      const h2 = [...sections(o, 2, { start: bodyStart, end: r.end })];
      const section = (...names: string[]) => names.map((n) => h2.find((s) => s.heading.text.toLowerCase().startsWith(n))).find((s) => s !== undefined);
      const context = section("context");
      const drivers = section("decision drivers");
      const options = section("considered options");
      const outcome = section("decision outcome") ?? h2.find((s) => s.heading.text.toLowerCase() === "decision");
      const consequencesAt = headingsWithin(o, outcome?.start ?? r.end, r.end).find((h) => /^consequences/i.test(h.text)) ?? section("consequences")?.heading;
      const consequencesEnd = consequencesAt === undefined ? r.end : consequencesAt.sectionEnd < o.lines.length ? consequencesAt.sectionEnd : r.end;
      const outcomeText = outcome === undefined ? "" : block(o.lines, outcome.start, Math.min(outcome.end, consequencesAt?.line ?? outcome.end));
      const chosenLine = outcomeText
        .split("\n")
        .map((l) => plain(l))
        .filter((l) => CHOSEN_HINT.test(l))
        .map((l) => CHOSEN.exec(l) as (string | null | undefined)[] | null)
        .find((m) => m !== null);
      const chosen = chosenLine?.[1]?.trim() ?? null;
      const status = (r.meta["status"] ?? field(o, bodyStart, r.end, STATUS_LINE) ?? (section("status") ? block(o.lines, section("status")?.start ?? 0, section("status")?.end ?? 0).split("\n")[0] : "") ?? "").trim();
      const date = r.meta["date"] ?? field(o, bodyStart, r.end, DATE_LINE);
      const lines = consequencesAt === undefined ? [] : itemsWithin(o, consequencesAt.line + 1, consequencesEnd).map((it) => plain(it.text));
      const statusWord = status.toLowerCase().split(/\s+/)[0] ?? "";
      const errors: { field: string; message: string }[] = [];
      if (title === "") errors.push({ field: "title", message: "The record has no title." });
      if (outcomeText === "") errors.push({ field: "decision_md", message: "The record has no Decision Outcome." });
      if (date !== null && !/^\d{4}-\d{2}-\d{2}$/.test(date)) errors.push({ field: "decided_at", message: "date must be YYYY-MM-DD." });
      return {
        lineStart: r.start + 1,
        lineEnd: r.end,
        target: "decision",
        parsed: {
          title,
          context_md: [context === undefined ? "" : block(o.lines, context.start, context.end), drivers === undefined ? "" : `Decision drivers:\n${block(o.lines, drivers.start, drivers.end)}`].filter((x) => x !== "").join("\n\n"),
          decision_md: outcomeText,
          rationale_md: chosenLine?.[2]?.trim() ?? "",
          alternatives: options === undefined ? [] : bullets(o, options.start, options.end).map((option) => ({ option, chosen: chosen !== null && option.toLowerCase() === chosen.toLowerCase() })),
          consequences: { good: lines.filter((l) => /^good\b/i.test(l)).map((l) => l.replace(/^good,?\s*(because\s*)?/i, "")), bad: lines.filter((l) => /^bad\b/i.test(l)).map((l) => l.replace(/^bad,?\s*(because\s*)?/i, "")) },
          tags: ACCEPTED.includes(statusWord) ? [] : [statusWord.replace(/[^a-z0-9._-]/g, "")].filter((t) => t !== ""),
          decided_at: date === null ? null : `${date}T00:00:00.000Z`,
          status,
          supersedes_row: null as number | null,
        },
        identity: `${date ?? ""} ${tokenize(title).join(" ")}`.trim(),
        errors,
      };
    });
    // "superseded by <ref>": the record named (by number or title) corrects this one. Records
    // are found by number and by title through maps (the first two of each, to skip oneself).
    const byNumber = new Map<number, number[]>();
    const byTitle = new Map<string, number[]>();
    const remember = <K>(map: Map<K, number[]>, key: K, i: number) => {
      const at = map.get(key) ?? [];
      if (at.length < 2) at.push(i);
      map.set(key, at);
    };
    refs.forEach((x, j) => {
      if (x.number !== null) remember(byNumber, Number(x.number), j);
      remember(byTitle, x.title.toLowerCase(), j);
    });
    const firstOther = (at: number[] | undefined, i: number) => at?.find((j) => j !== i) ?? -1;
    records.forEach((_r, i) => {
      const status = rows[i]?.parsed["status"];
      const m = /superseded by\s+(.+)$/i.exec(typeof status === "string" ? status : "");
      if (m === null) return;
      const ref = plain(LINK.matcher(m[1] ?? "").replaceAll("$1"));
      const num = /(\d{1,5})/.exec(ref)?.[1];
      const byNum = num === undefined ? -1 : firstOther(byNumber.get(Number(num)), i);
      const byName = firstOther(byTitle.get(ref.toLowerCase()), i);
      const target = byNum < 0 ? byName : byName < 0 ? byNum : Math.min(byNum, byName);
      const row = rows[target];
      if (row !== undefined) row.parsed["supersedes_row"] = i + 1;
    });
    return rows;
  },
};
