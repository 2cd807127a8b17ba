import { randomUUID } from "node:crypto";
import { readFile } from "node:fs/promises";
import { basename } from "node:path";
import type { Command } from "commander";
import { CliError } from "./cli-error.ts";
import { collect, PROJECT_OPTION } from "./cli-options.ts";
import type { CliIo } from "./cli-io.ts";
import type { OperationRequest } from "./service-client.ts";
import type { PrintCall } from "./session-state-commands.ts";

// What agents learn and what it cost (SESSION-STATE §6-10): `rules applicable` before a change,
// `lessons add|list`, `import FILE --parser NAME [--commit]`, `usage`.

type Json = Record<string, unknown>;

/** Reads unknown JSON: an object's field as an object, a list, a string or a number. */
const obj = (v: unknown): Json => (typeof v === "object" && v !== null && !Array.isArray(v) ? (v as Json) : {});
const list = (v: unknown): Json[] => (Array.isArray(v) ? v.map(obj) : []);
const text = (v: unknown): string => (typeof v === "string" ? v : typeof v === "number" || typeof v === "boolean" ? String(v) : "");

/** Calls one operation and returns its body (no output). */
export type CallService = (req: OperationRequest) => Promise<unknown>;

const OPERATIONS = ["create", "modify", "delete", "rename"];

const renderLesson = (l: Json) => `lesson ${text(l.id)} ${text(l.slug)} ${text(l.status)} observed=${text(l.observation_count)} sessions=${text(l.distinct_session_count)} "${text(l.title)}"\n`;

function renderApplicable(body: Json): string {
  const rules = list(body.rules);
  if (rules.length === 0) return `no rule applies (${text(body.evaluated)} active rules evaluated)\n`;
  return rules
    .map((entry) => {
      const rule = obj(entry.rule);
      const matched = obj(entry.matched);
      const why = [...list(matched.paths).map((p) => `${text(p.path)} ~ ${text(p.glob)}`), ...(matched.operations as string[] | undefined ?? []), ...(matched.languages as string[] | undefined ?? []), ...list(matched.code_patterns).map((c) => `/${text(c.pattern)}/`)];
      return `${text(rule.level).toUpperCase()} ${text(rule.slug)}: ${text(rule.title)}${rule.always_apply === true ? " (always)" : ""}\n  ${text(rule.body_md).split("\n").join("\n  ")}\n  matched: ${why.join(", ") || "always_apply"}\n`;
    })
    .join("");
}

function renderRows(imp: Json, rows: Json[]): string {
  const counts = obj(imp.counts);
  const head = `import ${text(imp.id)} ${text(imp.status)} ${text(imp.parser)} ${text(imp.filename)}: rows=${text(counts.rows)} ready=${text(counts.ready)} invalid=${text(counts.invalid)} duplicate=${text(counts.duplicate)}${imp.created === null ? "" : ` created=${text(imp.created)} skipped=${text(imp.skipped)}`}\n`;
  return head + rows.map((r) => `  row ${text(r.row_number)} (lines ${text(r.line_start)}-${text(r.line_end)}) ${text(r.status)} ${text(r.target)} "${text(obj(r.parsed).title)}"${list(r.errors).map((e) => `\n    ${text(e.field)}: ${text(e.message)}`).join("")}\n`).join("");
}

function renderUsage(body: Json): string {
  const line = (r: Json, label?: string) =>
    `${label ?? (Object.entries(obj(r.group)).map(([k, v]) => `${k}=${text(v)}`).join(" ") || "all")}  sessions=${text(r.sessions)} tokens=${text(r.total_tokens)} (in ${text(r.input_tokens)}, out ${text(r.output_tokens)}, cache read ${text(r.cache_read_tokens)}, cache write ${text(r.cache_write_tokens)}) cost=$${text(r.cost_usd)} active=${text(r.active_seconds)}s\n`;
  return `${list(body.rows).map((r) => line(r)).join("")}${line(obj(body.totals), "total")}`;
}

/** Adds `rules`, `lessons`, `import` and `usage` to the program. */
export function registerLearningCommands(program: Command, io: CliIo, printBody: PrintCall, call: CallService, json: () => boolean): void {
  const print = (req: OperationRequest, render: (body: Json) => string) => printBody(req, (b) => render(b as Json));

  const rules = program.command("rules").description("rules derived from lessons");
  rules
    .command("applicable")
    .description("print the rules that apply to a change before you make it (must first)")
    .requiredOption("--path <path>", "a path the change touches (repeatable)", collect)
    .requiredOption("--op <operation>", "create | modify | delete | rename (repeatable)", collect)
    .option("--lang <language>", "a language of the change (repeatable; default: from the paths' extensions)", collect)
    .option("--code <snippet>", "a code snippet of the change (repeatable)", collect)
    .option(...PROJECT_OPTION)
    .action(async (o: { path: string[]; op: string[]; lang?: string[]; code?: string[]; project?: string }) => {
      for (const op of o.op) if (!OPERATIONS.includes(op)) throw CliError.local("CLI_USAGE", `--op must be one of ${OPERATIONS.join(", ")}.`);
      await print({ operation: "find_applicable_rules", input: { paths: o.path, operations: o.op, languages: o.lang, code: o.code, project_id: o.project } }, renderApplicable);
    });

  const lessons = program.command("lessons").description("lessons the project's agents learned");
  lessons
    .command("add")
    .description("record a lesson (\"Do:\" / \"Don't:\" lines recommended)")
    .requiredOption("--title <title>", "title")
    .requiredOption("--body <markdown>", "the lesson")
    .option("--why <markdown>", "why it matters")
    .option("--slug <slug>", "slug (default: derived from the title)")
    .option("--tag <tag>", "tag (repeatable)", collect)
    .option("--project <project_id>", "project")
    .action(async (o: { title: string; body: string; why?: string; slug?: string; tag?: string[]; project?: string }) => {
      await print({ operation: "create_lesson", input: { title: o.title, body_md: o.body, why_md: o.why, slug: o.slug, tags: o.tag, project_id: o.project }, idempotencyKey: randomUUID() }, renderLesson);
    });
  lessons
    .command("list")
    .description("list lessons, most recently observed first")
    .option("--status <status>", "active | retired | superseded")
    .option("--tag <tag>", "tag")
    .option("--q <words>", "words to find")
    .option("--sort <sort>", "last_observed_at (default) | observation_count")
    .option("--project <project_id>", "project")
    .option("--limit <n>", "page size (default 50, at most 100)")
    .option("--cursor <cursor>", "next_cursor of the previous page")
    .action(async (o: { status?: string; tag?: string; q?: string; sort?: string; project?: string; limit?: string; cursor?: string }) => {
      await print({ operation: "list_lessons", input: { status: o.status, tag: o.tag, q: o.q, sort: o.sort, project_id: o.project, limit: o.limit, cursor: o.cursor } }, (body) => {
        const items = list(body.items);
        return items.length === 0 ? "no lessons\n" : items.map(renderLesson).join("");
      });
    });

  program
    .command("import")
    .description("import a DECISIONS.md, BACKLOG.md, LESSONS.md or MADR file: print the preview, and with --commit create the ready rows")
    .argument("<file>", "the markdown file")
    .requiredOption("--parser <name>", "decisions-madr | decisions-log | backlog-checklist | lessons-list")
    .option("--commit", "commit the preview (create every ready row)")
    .option("--project <project_id>", "project")
    .action(async (file: string, o: { parser: string; commit?: boolean; project?: string }) => {
      let content: string;
      try {
        content = await readFile(file, "utf8");
      } catch (e) {
        throw CliError.local("CLI_USAGE", `Cannot read ${file}: ${(e as NodeJS.ErrnoException).code ?? "error"}.`);
      }
      let imp = obj(await call({ operation: "upload_import", input: { parser: o.parser, filename: basename(file), content, project_id: o.project }, idempotencyKey: randomUUID() }));
      if (o.commit) imp = obj(await call({ operation: "commit_import", input: { import_id: imp.id }, idempotencyKey: randomUUID() }));
      const rows: Json[] = [];
      let cursor: string | undefined;
      do {
        const page = obj(await call({ operation: "list_import_rows", input: { import_id: imp.id, limit: 100, cursor } }));
        rows.push(...list(page.items));
        cursor = typeof page.next_cursor === "string" ? page.next_cursor : undefined;
      } while (cursor !== undefined);
      io.stdout.write(json() ? `${JSON.stringify({ import: imp, rows }, null, 2)}\n` : renderRows(imp, rows));
    });

  program
    .command("usage")
    .description("what the work cost: tokens and dollars from the sessions' usage reports")
    .option("--group-by <dims>", "one or two of session, project, account, model, period (default model)")
    .option("--period <period>", "day | week | month (with --group-by period)")
    .option("--since <time>", "start (ISO 8601; default 30 days ago)")
    .option("--until <time>", "end (ISO 8601; default now)")
    .option("--project <project_id>", "only this project")
    .option("--session <id>", "only this build session")
    .action(async (o: { groupBy?: string; period?: string; since?: string; until?: string; project?: string; session?: string }) => {
      await print({ operation: "get_usage", input: { group_by: o.groupBy, period: o.period, since: o.since, until: o.until, project_id: o.project, build_session_id: o.session, limit: 100 } }, renderUsage);
    });
}
