import type { ErrorCode } from "../errors.ts";
import { IMPORT_LIMITS } from "../session-state/imports/imports.ts";
import { GLOB_LIMITS } from "../session-state/rules/path-glob.ts";
import { RULE_LIMITS } from "../session-state/rules/rules.ts";
import { TRIGGER_LIMITS } from "../session-state/rules/rule-triggers.ts";

// The worst inputs we know for the text work of catalogue operations (DESIGN §2c "Hostile
// input"): each one within the documented limits (it must be answered without stalling the
// server) or just past a cap (it must be refused with the right code, without doing the work
// first). A hostile-input suite loops over this table for every catalogue operation; add an
// entry whenever a new super-linear path is found and fixed. Pure data: no I/O.

/** What the entries' inputs are built from: a project, and the lesson a rule entry derives from. */
export interface WorstInputContext {
  projectId: string;
  lessonId: string;
}

/** One worst input: what it is, which catalogue operation gets it, and what the answer must be. */
export interface WorstInput {
  /** What the input is and why it is the worst. */
  name: string;
  /** The catalogue operation (its name, as the MCP tool is named). */
  operation: string;
  /** Rules (derive_rule triggers) the project must hold before the input is sent. */
  rules?: readonly { triggers: Record<string, unknown> }[];
  /** The operation's input (body, query and path fields side by side, as the catalogue takes them). */
  input(ctx: WorstInputContext): Record<string, unknown>;
  /** The status it must get, and for a refusal the SVC_ code and `details.reason` when there is one. */
  expect: { status: number; code?: ErrorCode; reason?: string };
  /** What the input cost before it was bounded (for the record: docs/reliability.md). */
  before?: string;
}

const upload = (parser: string, content: string) => (ctx: WorstInputContext) => ({ project_id: ctx.projectId, parser, filename: "HOSTILE.md", content });

/**
 * Import content up to the limits: `head`, then `unit` repeated while the content stays within
 * 200 KB and its JSON string within 250 KB (the request body holds 256 KB: a newline costs two
 * bytes there).
 */
export function fill(unit: string, head = "", tail = ""): string {
  const json = (x: string) => JSON.stringify(x).length - 2;
  const byBytes = Math.floor((IMPORT_LIMITS.contentBytes - head.length - tail.length) / unit.length);
  const byJson = Math.floor((250 * 1024 - json(head) - json(tail)) / json(unit));
  return `${head}${unit.repeat(Math.min(byBytes, byJson))}${tail}`;
}

/** A path of `length` characters drawn from "ab" (deterministic), so that no prefix filter can reject it. */
function abPath(seed: number, length: number): string {
  let x = seed;
  let out = "";
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    out += (x >> 8) % 2 === 0 ? "a" : "b";
  }
  return out;
}

/** The glob of the reproduction: picomatch's backtracking RegExp took seconds on 40 characters. */
export const BACKTRACKING_GLOB = "*a*a*a*a*a*a*a*a*a*a*b";

/** The costliest glob shape within GLOB_LIMITS (measured): stars, then as many `?` as allowed, each doubling the DFA's states. */
export const WIDEST_GLOB = (c: string) => `${"*a".repeat(GLOB_LIMITS.wildcards - GLOB_LIMITS.singleCharacter - 1)}${"?".repeat(GLOB_LIMITS.singleCharacter)}${c}`;

/** The costliest code pattern within TRIGGER_LIMITS: every "a" of the snippet starts a thread. */
export const WIDEST_PATTERN = (n: number) => `a[ab]{${n}}c`;

/** Paths for POST /rules/applicable: 1,000-character paths up to the paths' 64 KB. */
const widePaths = () => Array.from({ length: Math.floor(RULE_LIMITS.changePathBytes / 1_000) }, (_, i) => abPath(i + 1, 1_000));

/** Every worst input, in catalogue order of their operations. */
export const WORST_INPUTS: readonly WorstInput[] = [
  {
    name: "backlog-checklist: 51,200 one-word items without a checkbox (200 KB)",
    operation: "upload_import",
    input: upload("backlog-checklist", fill("- a\n")),
    expect: { status: 201 },
    before: "47.8 s (the outline sliced the token list for every item)",
  },
  {
    name: "backlog-checklist: 25,600 checklist rows, past the 2,000-row cap",
    operation: "upload_import",
    input: upload("backlog-checklist", fill("- [ ] a\n")),
    expect: { status: 400, code: "SVC_MALFORMED_REQUEST" },
    before: "20,000 rows took 8.2 s before the 400 (rows were counted after parsing)",
  },
  {
    name: "backlog-checklist: 2,000 rows under 37,760 headings (200 KB)",
    operation: "upload_import",
    input: upload("backlog-checklist", fill("## x\n", "", "- [ ] t\n".repeat(IMPORT_LIMITS.rows))),
    expect: { status: 201 },
  },
  {
    name: "decisions-log: 40,960 headings, past the row cap",
    operation: "upload_import",
    input: upload("decisions-log", fill("## a\n")),
    expect: { status: 400, code: "SVC_MALFORMED_REQUEST" },
  },
  {
    name: "decisions-log: 2,000 decisions over about 31,000 sub-headings (200 KB)",
    operation: "upload_import",
    input: upload("decisions-log", fill("### x\n", Array.from({ length: IMPORT_LIMITS.rows }, (_, i) => `## d${i}\n`).join(""))),
    expect: { status: 201 },
  },
  {
    name: "decisions-log: a 200 KB heading of unclosed links ('[](' repeated)",
    operation: "upload_import",
    input: upload("decisions-log", fill("[](", "## ")),
    expect: { status: 201 },
  },
  {
    name: "decisions-madr: 51,200 records, past the row cap",
    operation: "upload_import",
    input: upload("decisions-madr", fill("# a\n")),
    expect: { status: 400, code: "SVC_MALFORMED_REQUEST" },
  },
  {
    name: "decisions-madr: 36,571 front-matter fences (the body's limit)",
    operation: "upload_import",
    input: upload("decisions-madr", fill("---\n\n")),
    expect: { status: 201 },
  },
  {
    name: "decisions-madr: a 200 KB 'Chosen option:' line of spaces",
    operation: "upload_import",
    input: upload("decisions-madr", fill(" ", "# T\n\n## Decision Outcome\nChosen option: ", "x,")),
    expect: { status: 201 },
  },
  {
    name: "decisions-madr: 2,000 records superseding each other",
    operation: "upload_import",
    input: upload("decisions-madr", fill(" ", Array.from({ length: IMPORT_LIMITS.rows }, (_, i) => `# ${i + 1}. R\nStatus: superseded by ${i + 2}\n## Decision Outcome\nx\n`).join(""))),
    expect: { status: 201 },
  },
  {
    name: "lessons-list: 18,618 bold items, past the row cap",
    operation: "upload_import",
    input: upload("lessons-list", fill("- **a**: b\n")),
    expect: { status: 400, code: "SVC_MALFORMED_REQUEST" },
  },
  {
    name: "lessons-list: 28,444 '## a' sections, past the row cap",
    operation: "upload_import",
    input: upload("lessons-list", fill("## a\nb\n")),
    expect: { status: 400, code: "SVC_MALFORMED_REQUEST" },
  },
  {
    name: `rule glob ${BACKTRACKING_GLOB} against a 40-character path of a's`,
    operation: "find_applicable_rules",
    rules: [{ triggers: { paths: [BACKTRACKING_GLOB] } }],
    input: (ctx) => ({ project_id: ctx.projectId, paths: ["a".repeat(40)], operations: ["modify"] }),
    expect: { status: 200 },
    before: "6.8 s (picomatch compiled a backtracking RegExp)",
  },
  {
    name: `a rule with ${TRIGGER_LIMITS.paths} globs of the widest shape against 65 paths of 1,000 characters (64 KB)`,
    operation: "find_applicable_rules",
    rules: [{ triggers: { paths: Array.from({ length: TRIGGER_LIMITS.paths }, (_, i) => WIDEST_GLOB(String(i))) } }],
    input: (ctx) => ({ project_id: ctx.projectId, paths: widePaths(), operations: ["modify"] }),
    expect: { status: 200 },
  },
  {
    name: "paths past their 64 KB",
    operation: "find_applicable_rules",
    input: (ctx) => ({ project_id: ctx.projectId, paths: [...widePaths(), abPath(99, 1_000), abPath(98, 1_000)], operations: ["modify"] }),
    expect: { status: 400, code: "SVC_MALFORMED_REQUEST" },
  },
  {
    name: "a rule with code patterns of the widest shape against 128 KB of code",
    operation: "find_applicable_rules",
    rules: [{ triggers: { code_patterns: [WIDEST_PATTERN(TRIGGER_LIMITS.patternProgramTotal - 4)] } }],
    input: (ctx) => ({ project_id: ctx.projectId, paths: [], operations: [], code: [`c${abPath(7, RULE_LIMITS.codeBytes - 1)}`] }),
    expect: { status: 200 },
  },
  {
    name: `a glob with ${GLOB_LIMITS.wildcards + 1} wildcards`,
    operation: "derive_rule",
    input: (ctx) => ({ lesson_id: ctx.lessonId, level: "must", triggers: { paths: ["*a".repeat(GLOB_LIMITS.wildcards + 1)] } }),
    expect: { status: 400, code: "SVC_MALFORMED_REQUEST", reason: "glob_too_complex" },
  },
  {
    name: `a glob with ${GLOB_LIMITS.singleCharacter + 1} single-character wildcards`,
    operation: "derive_rule",
    input: (ctx) => ({ lesson_id: ctx.lessonId, level: "must", triggers: { paths: [`*a${"?".repeat(GLOB_LIMITS.singleCharacter + 1)}`] } }),
    expect: { status: 400, code: "SVC_MALFORMED_REQUEST", reason: "glob_too_complex" },
  },
  {
    name: "a glob with the extglob !(...)",
    operation: "derive_rule",
    input: (ctx) => ({ lesson_id: ctx.lessonId, level: "must", triggers: { paths: ["src/!(generated)/**"] } }),
    expect: { status: 400, code: "SVC_MALFORMED_REQUEST", reason: "bad_glob" },
  },
  {
    name: "a code pattern compiling past the program limit",
    operation: "derive_rule",
    input: (ctx) => ({ lesson_id: ctx.lessonId, level: "must", triggers: { code_patterns: ["(.{0,20}a){20}c"] } }),
    expect: { status: 400, code: "SVC_MALFORMED_REQUEST", reason: "pattern_too_complex" },
  },
];
