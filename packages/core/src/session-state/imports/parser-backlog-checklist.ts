import { tokenize } from "../text/tokens.ts";
import { block, outline } from "./markdown.ts";
import type { ImportParser, ParsedRow } from "./parser.ts";

const CHECKBOX = /^\[( |x|X)\]\s+(.*)$/;
const PRIORITY_HEADING = /^P([0-4])\b/i;
const INLINE_PRIORITY = /\(P([0-4])\)/i;
const LABEL = /(^|\s)#([a-z0-9][a-z0-9._-]{0,39})(?=$|[\s,.;:)])/gi;
const KINDS = ["bug", "feature", "task", "chore", "spike"];

/**
 * backlog-checklist: top-level `- [ ]` / `- [x]` items; `## P0`..`## P4` headings or `(P1)` set
 * the priority (else 2), `#label` tokens become labels (one naming a kind sets the kind), the
 * item's indented lines its description; checked items are imported resolved.
 */
export const BACKLOG_CHECKLIST: ImportParser = {
  name: "backlog-checklist",
  version: 1,
  target: "backlog_item",
  description: "A BACKLOG.md checklist: `- [ ]` open and `- [x]` done items under `## P0`..`## P4` headings (or `(P1)` in the line), `#label` tokens, indented lines as the description.",
  example: "## P1\n- [ ] Retry webhooks with jitter #webhooks\n  Backoff alone bunches retries.\n- [x] Fix the login redirect #bug\n",
  parse(content, filename, maxRows = Number.MAX_SAFE_INTEGER) {
    const o = outline(content);
    const rows: ParsedRow[] = [];
    // Items come in document order: the heading above each one is found by walking forward.
    let above = -1;
    for (const item of o.items) {
      if (rows.length > maxRows) break;
      while (above + 1 < o.headings.length && (o.headings[above + 1]?.line ?? Number.MAX_SAFE_INTEGER) < item.start) above++;
      const m = CHECKBOX.exec(item.text);
      if (item.depth !== 1 || m === null) continue;
      const heading = o.headings[above];
      const sectionPriority = heading === undefined ? null : PRIORITY_HEADING.exec(heading.text)?.[1];
      let text = m[2] ?? "";
      const inline = INLINE_PRIORITY.exec(text);
      text = text.replace(INLINE_PRIORITY, " ");
      const labels: string[] = [];
      text = text.replace(LABEL, (_all, lead: string, label: string) => {
        if (!labels.includes(label.toLowerCase())) labels.push(label.toLowerCase());
        return lead;
      });
      const title = text.replace(/\s+/g, " ").trim();
      const done = m[1] !== " ";
      const line = item.start + 1;
      rows.push({
        lineStart: line,
        lineEnd: item.end,
        target: "backlog_item",
        parsed: {
          title,
          description_md: block(o.lines, item.start + 1, item.end),
          priority: Number(inline?.[1] ?? sectionPriority ?? 2),
          labels,
          kind: labels.find((l) => KINDS.includes(l)) ?? "task",
          status: done ? "resolved" : "open",
          closing_note: done ? `imported as done from ${filename}:${line}` : null,
        },
        identity: tokenize(title).join(" "),
        errors: title === "" ? [{ field: "title", message: "The item has no title." }] : [],
      });
    }
    return rows;
  },
};
