import { tokenize } from "../text/tokens.ts";
import { block, outline, sections } from "./markdown.ts";
import type { ImportParser, ParsedRow } from "./parser.ts";

const BOLD_ITEM = /^\*\*(.+?)\*\*\s*:?\s*(.*)$/;
const WHY = /^\s*\*{0,2}why\*{0,2}\s*:\s*\*{0,2}\s*/i;

function lesson(title: string, body: string, lineStart: number, lineEnd: number): ParsedRow {
  const lines = body.split("\n");
  const whyAt = lines.findIndex((l) => WHY.test(l));
  const bodyMd = (whyAt < 0 ? lines : lines.slice(0, whyAt)).join("\n").trim();
  const whyMd = whyAt < 0 ? "" : [lines[whyAt]?.replace(WHY, "") ?? "", ...lines.slice(whyAt + 1)].join("\n").trim();
  const errors = [];
  if (title === "") errors.push({ field: "title", message: "The lesson has no title." });
  if (bodyMd === "") errors.push({ field: "body_md", message: "The lesson has no body." });
  return { lineStart, lineEnd, target: "lesson", parsed: { title, body_md: bodyMd, why_md: whyMd }, identity: tokenize(title).join(" "), errors };
}

/** lessons-list: `## Title` sections with a body (a `Why:` line starts the why), or `- **Title**: body` items; one lesson each. */
export const LESSONS_LIST: ImportParser = {
  name: "lessons-list",
  version: 1,
  target: "lesson",
  description: "A LESSONS.md file: `## Title` sections with a body, or `- **Title**: body` list items; a `Why:` line starts the lesson's why.",
  example: "## Pin the Node version\nDo: keep `.nvmrc` in the repository.\nWhy: CI and laptops drifted apart.\n\n- **Small commits**: one change per commit.\n",
  parse(content, _filename, maxRows = Number.MAX_SAFE_INTEGER) {
    const o = outline(content);
    const rows: ParsedRow[] = [];
    for (const { heading, start, end } of sections(o, 2)) {
      if (rows.length > maxRows) return rows;
      rows.push(lesson(heading.text.trim(), block(o.lines, start, end), heading.line + 1, end));
    }
    if (rows.length > 0) return rows;
    for (const item of o.items) {
      if (rows.length > maxRows) break;
      const m = item.depth === 1 ? BOLD_ITEM.exec(item.text) : null;
      if (m === null) continue;
      const rest = block(o.lines, item.start + 1, item.end);
      rows.push(lesson((m[1] ?? "").trim(), [m[2] ?? "", rest].filter((x) => x !== "").join("\n"), item.start + 1, item.end));
    }
    return rows;
  },
};
