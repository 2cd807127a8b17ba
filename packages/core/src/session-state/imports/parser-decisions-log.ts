import { oneLine } from "../text/markdown-text.ts";
import { tokenize } from "../text/tokens.ts";
import { block, outline, sections, type Heading, type MarkdownOutline } from "./markdown.ts";
import type { ImportParser, ParsedRow } from "./parser.ts";

const HEADING = /^(?:(\d{4}-\d{2}-\d{2})\s*(?:[-–—:]\s*)?)?(.*)$/;
const WHY = /^\s*(?:[-*]\s*)?\*{0,2}(why|rationale)\*{0,2}\s*:\s*\*{0,2}\s*/i;

/** decisions-log: `## [YYYY-MM-DD -] Title` headings, `Why:` / `Rationale:` lines; one decision per heading. */
export const DECISIONS_LOG: ImportParser = {
  name: "decisions-log",
  version: 1,
  target: "decision",
  description: "A DECISIONS.md log: one decision per `## [YYYY-MM-DD -] Title` heading; `Why:` or `Rationale:` lines are the rationale, the rest the decision.",
  example: "## 2026-03-01 - Use PostgreSQL for the queue\nSKIP LOCKED gives us a queue without another server.\nWhy: one database to run.\n",
  parse(content, _filename, maxRows = Number.MAX_SAFE_INTEGER) {
    const o = outline(content);
    const rows: ParsedRow[] = [];
    for (const { heading, start, end } of sections(o, 2)) {
      if (rows.length > maxRows) break;
      rows.push(row(o, heading, start, end));
    }
    return rows;
  },
};

function row(o: MarkdownOutline, heading: Heading, start: number, end: number): ParsedRow {
  const m = HEADING.exec(heading.text);
  const date = m?.[1] ?? null;
  const title = (m?.[2] ?? heading.text).trim();
  const decision: string[] = [];
  const why: string[] = [];
  let inWhy = false;
  for (let i = start; i < end; i++) {
    const line = o.lines[i] ?? "";
    if (WHY.test(line)) {
      inWhy = true;
      why.push(line.replace(WHY, ""));
    } else if (line.trim() === "") {
      inWhy = false;
      decision.push(line);
    } else (inWhy ? why : decision).push(line);
  }
  const decisionMd = block(decision, 0, decision.length);
  const errors = title === "" ? [{ field: "title", message: "The heading has no title." }] : [];
  return {
    lineStart: heading.line + 1,
    lineEnd: end,
    target: "decision",
    parsed: { title, decision_md: decisionMd === "" ? oneLine(title) : decisionMd, rationale_md: block(why, 0, why.length), decided_at: date === null ? null : `${date}T00:00:00.000Z` },
    identity: `${date ?? ""} ${tokenize(title).join(" ")}`.trim(),
    errors,
  };
}
