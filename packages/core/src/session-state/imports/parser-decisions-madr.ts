import { tokenize } from "../text.ts";
import { block, outline, sections, type MarkdownOutline } from "./markdown.ts";
import type { ImportParser, ParsedRow } from "./parser.ts";

// MADR 4.0 records (https://adr.github.io/madr/): front matter (status, date), `# Title`,
// `## Context and Problem Statement`, `## Decision Drivers`, `## Considered Options`,
// `## Decision Outcome` ("Chosen option: "X", because ...", `### Consequences` with
// "Good, because" / "Bad, because" lines). A file may hold several records (each from its front
// matter or its `# Title`); a record whose status says "superseded by <ref>" naming another record
// of the file makes that record a correction of it.

const FRONT_MATTER = /^---\s*$/;
const NUMBER = /^(?:ADR[-\s]?)?(\d{1,5})(?:\s*[-.:)]\s*|\s+)/i;
const CHOSEN = /chosen option:\s*"?([^",]+?)"?\s*(?:,\s*because\s*(.*))?$/i;
const ACCEPTED = ["accepted", "superseded", ""];

interface RawRecord {
  start: number;
  end: number;
  meta: Record<string, string>;
}

/** Front matter blocks blanked out (line numbers kept) and read as `key: value`. */
function stripFrontMatter(content: string): { text: string; blocks: { line: number; end: number; meta: Record<string, string> }[] } {
  const lines = content.replace(/\r\n?/g, "\n").split("\n");
  const blocks: { line: number; end: number; meta: Record<string, string> }[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (!FRONT_MATTER.test(lines[i] ?? "") || (i > 0 && (lines[i - 1] ?? "").trim() !== "")) continue;
    const close = lines.findIndex((l, j) => j > i && FRONT_MATTER.test(l));
    if (close < 0 || !lines.slice(i + 1, close).every((l) => l.trim() === "" || /^[\w-]+\s*:/.test(l))) continue;
    const meta: Record<string, string> = {};
    for (const l of lines.slice(i + 1, close)) {
      const m = /^([\w-]+)\s*:\s*(.*)$/.exec(l);
      if (m) meta[(m[1] ?? "").toLowerCase()] = (m[2] ?? "").trim().replace(/^["']|["']$/g, "");
    }
    blocks.push({ line: i, end: close + 1, meta });
    for (let j = i; j <= close; j++) lines[j] = "";
    i = close;
  }
  return { text: lines.join("\n"), blocks };
}

const plain = (s: string) => s.replace(/[*_`]/g, "").trim();
const bullets = (o: MarkdownOutline, start: number, end: number) => o.items.filter((it) => it.start >= start && it.end <= end && it.depth === 1).map((it) => plain(it.text));

function field(o: MarkdownOutline, start: number, end: number, label: string): string | null {
  for (const line of o.lines.slice(start, end)) {
    const m = new RegExp(`^\\s*(?:[-*]\\s*)?\\*{0,2}${label}\\*{0,2}\\s*:\\s*(.*)$`, "i").exec(line);
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
  parse(content) {
    const { text, blocks } = stripFrontMatter(content);
    const o = outline(text);
    const h1 = o.headings.filter((h) => h.level === 1);
    const records: (RawRecord & { title: string; titleLine: number })[] = h1.map((h, i) => {
      const next = h1[i + 1];
      const fm = blocks.filter((b) => b.end <= h.line && (i === 0 || b.line > (h1[i - 1]?.line ?? -1))).pop();
      const nextFm = next === undefined ? undefined : blocks.filter((b) => b.end <= next.line && b.line > h.line).shift();
      return { start: fm?.line ?? h.line, end: nextFm?.line ?? next?.line ?? o.lines.length, meta: fm?.meta ?? {}, title: h.text, titleLine: h.line };
    });
    const refs = records.map((r) => ({ number: NUMBER.exec(r.title)?.[1] ?? null, title: r.title.replace(NUMBER, "").trim() }));
    const rows = records.map((r, index): ParsedRow => {
      const title = refs[index]?.title ?? r.title;
      const bodyStart = r.titleLine + 1;
      const h2 = sections(o, 2, { start: bodyStart, end: r.end });
      const section = (...names: string[]) => names.map((n) => h2.find((s) => s.heading.text.toLowerCase().startsWith(n))).find((s) => s !== undefined);
      const context = section("context");
      const drivers = section("decision drivers");
      const options = section("considered options");
      const outcome = section("decision outcome") ?? h2.find((s) => s.heading.text.toLowerCase() === "decision");
      const consequencesAt = o.headings.find((h) => h.line >= (outcome?.start ?? r.end) && h.line < r.end && /^consequences/i.test(h.text)) ?? section("consequences")?.heading;
      const consequencesEnd = consequencesAt === undefined ? r.end : (o.headings.find((h) => h.line > consequencesAt.line && h.level <= consequencesAt.level)?.line ?? r.end);
      const outcomeText = outcome === undefined ? "" : block(o.lines, outcome.start, Math.min(outcome.end, consequencesAt?.line ?? outcome.end));
      const chosenLine = outcomeText.split("\n").map((l) => CHOSEN.exec(plain(l))).find((m) => m !== null);
      const chosen = chosenLine?.[1]?.trim() ?? null;
      const status = (r.meta["status"] ?? field(o, bodyStart, r.end, "status") ?? (section("status") ? block(o.lines, section("status")?.start ?? 0, section("status")?.end ?? 0).split("\n")[0] : "") ?? "").trim();
      const date = r.meta["date"] ?? field(o, bodyStart, r.end, "date");
      const lines = consequencesAt === undefined ? [] : o.items.filter((it) => it.start > consequencesAt.line && it.end <= consequencesEnd).map((it) => plain(it.text));
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
    // "superseded by <ref>": the record named (by number or title) corrects this one.
    records.forEach((_r, i) => {
      const status = rows[i]?.parsed["status"];
      const m = /superseded by\s+(.+)$/i.exec(typeof status === "string" ? status : "");
      if (m === null) return;
      const ref = plain((m[1] ?? "").replace(/\[([^\]]*)\]\([^)]*\)/g, "$1"));
      const num = /(\d{1,5})/.exec(ref)?.[1];
      const target = refs.findIndex((x, j) => j !== i && ((num !== undefined && x.number !== null && Number(x.number) === Number(num)) || x.title.toLowerCase() === ref.toLowerCase()));
      const row = rows[target];
      if (row !== undefined) row.parsed["supersedes_row"] = i + 1;
    });
    return rows;
  },
};
