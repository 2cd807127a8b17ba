import { RE2JS } from "re2js";
import { malformed } from "../../errors.ts";
import { ATTRIBUTE_KEY_PATTERN } from "../conventions/fields.ts";
import { isKnownExtension, isKnownFilename, isLanguageName } from "./languages.ts";
import { RULE_OPERATIONS, type RuleOperation, type RuleTriggers } from "./rule.ts";
import { compileGlob } from "./path-glob.ts";

/**
 * Limits of rule triggers (SESSION-STATE §8). `patternProgramMax` bounds a code pattern's compiled
 * RE2 program and `patternProgramTotal` a rule's patterns together: RE2 matching is linear in the
 * code's length times the program's size, and the code may be 128 KB (DESIGN §2c).
 */
export const TRIGGER_LIMITS = { paths: 50, globMax: 500, patterns: 20, patternMax: 500, patternProgramMax: 100, patternProgramTotal: 100, languages: 20, attributes: 20, attributeValues: 20, attributeValueMax: 200 } as const;

/** Triggers with no dimension populated. */
export const NO_TRIGGERS: Readonly<RuleTriggers> = { paths: [], operations: [], languages: [], code_patterns: [], project_attributes: {} };

/** Triggers as they arrive. */
export interface TriggersInput {
  paths?: string[];
  operations?: string[];
  languages?: string[];
  code_patterns?: string[];
  project_attributes?: Record<string, string[]>;
}

/**
 * A relative POSIX path (or glob): not empty, no leading `/`, no backslash, no `..` segment.
 * A leading `./` is dropped.
 * @throws DomainError SVC_MALFORMED_REQUEST naming `field`.
 */
export function checkRelativePath(value: string, field: string, max: number = TRIGGER_LIMITS.globMax): string {
  const v = value.startsWith("./") ? value.slice(2) : value;
  if (v.length === 0 || v.length > max || v.startsWith("/") || v.includes("\\") || /^[A-Za-z]:/.test(v) || v.split("/").includes("..")) {
    throw malformed(`${field} entries must be relative POSIX paths without '..' (1 to ${max} characters).`, { field, value });
  }
  return v;
}

/**
 * A glob, compiled once to check it: its syntax (path-glob.ts) and its shape (GLOB_LIMITS), so
 * that matching it stays linear and cheap (DESIGN §2c).
 * @throws DomainError SVC_MALFORMED_REQUEST (details.reason bad_glob, or glob_too_complex with details.limit).
 */
export function checkGlob(glob: string, field = "triggers.paths"): string {
  const g = checkRelativePath(glob, field);
  const compiled = compileGlob(g);
  if (!compiled.ok) {
    const { refusal } = compiled;
    throw malformed(`${field} holds a glob that is refused: ${refusal.problem}.`, { field, value: glob, reason: refusal.reason, ...(refusal.reason === "glob_too_complex" ? { limit: refusal.limit } : {}) });
  }
  return g;
}

/**
 * An RE2 regular expression (linear-time matching; no backreferences or lookaround) whose program
 * is at most TRIGGER_LIMITS.patternProgramMax instructions.
 * @throws DomainError SVC_MALFORMED_REQUEST (details.reason bad_pattern, or pattern_too_complex with details.limit).
 */
export function checkPattern(pattern: string, field = "triggers.code_patterns"): string {
  if (pattern.length === 0 || pattern.length > TRIGGER_LIMITS.patternMax) throw malformed(`${field} entries must be 1 to ${TRIGGER_LIMITS.patternMax} characters.`, { field });
  let re: RE2JS;
  try {
    re = RE2JS.compile(pattern);
  } catch {
    throw malformed(`${field} holds a pattern that is not an RE2 regular expression.`, { field, value: pattern, reason: "bad_pattern" });
  }
  if (re.programSize() > TRIGGER_LIMITS.patternProgramMax) throw malformed(`${field} holds a pattern that compiles to more than ${TRIGGER_LIMITS.patternProgramMax} instructions.`, { field, value: pattern, reason: "pattern_too_complex", limit: TRIGGER_LIMITS.patternProgramMax });
  return pattern;
}

function list(values: readonly string[] | undefined, field: string, max: number): string[] {
  const v = [...new Set(values ?? [])];
  if (v.length > max) throw malformed(`${field} holds at most ${max} entries.`, { field });
  return v;
}

/**
 * Triggers checked and normalized (duplicates dropped, order kept; languages lower-case
 * Linguist names; attribute values non-empty lists).
 * @throws DomainError SVC_MALFORMED_REQUEST.
 */
export function checkTriggers(input: TriggersInput | undefined): RuleTriggers {
  const t = input ?? {};
  const operations = list(t.operations, "triggers.operations", RULE_OPERATIONS.length);
  for (const op of operations) if (!(RULE_OPERATIONS as readonly string[]).includes(op)) throw malformed(`triggers.operations must be a subset of ${RULE_OPERATIONS.join(", ")}.`, { field: "triggers.operations", value: op });
  const languages = list(t.languages, "triggers.languages", TRIGGER_LIMITS.languages).map((l) => l.toLowerCase());
  for (const l of languages) if (!isLanguageName(l)) throw malformed("triggers.languages must be Linguist language names (lower case).", { field: "triggers.languages", value: l, reason: "unknown_language" });
  const attrs = t.project_attributes ?? {};
  const keys = Object.keys(attrs);
  if (keys.length > TRIGGER_LIMITS.attributes) throw malformed(`triggers.project_attributes holds at most ${TRIGGER_LIMITS.attributes} keys.`, { field: "triggers.project_attributes" });
  const projectAttributes: Record<string, string[]> = {};
  for (const k of keys.sort()) {
    const values = attrs[k];
    if (!ATTRIBUTE_KEY_PATTERN.test(k)) throw malformed(`triggers.project_attributes keys must match ${ATTRIBUTE_KEY_PATTERN.source}.`, { field: "triggers.project_attributes", key: k });
    if (!Array.isArray(values) || values.length === 0 || values.length > TRIGGER_LIMITS.attributeValues || values.some((v) => typeof v !== "string" || v.length > TRIGGER_LIMITS.attributeValueMax)) {
      throw malformed(`triggers.project_attributes values must be lists of 1 to ${TRIGGER_LIMITS.attributeValues} strings.`, { field: "triggers.project_attributes", key: k });
    }
    projectAttributes[k] = [...new Set(values)];
  }
  const codePatterns = list(t.code_patterns, "triggers.code_patterns", TRIGGER_LIMITS.patterns).map((p) => checkPattern(p));
  const programs = codePatterns.reduce((n, p) => n + RE2JS.compile(p).programSize(), 0);
  if (programs > TRIGGER_LIMITS.patternProgramTotal) throw malformed(`triggers.code_patterns compile to more than ${TRIGGER_LIMITS.patternProgramTotal} instructions together.`, { field: "triggers.code_patterns", reason: "pattern_too_complex", limit: TRIGGER_LIMITS.patternProgramTotal });
  return {
    paths: [...new Set(list(t.paths, "triggers.paths", TRIGGER_LIMITS.paths).map((g) => checkGlob(g)))],
    operations: operations as RuleOperation[],
    languages: [...new Set(languages)],
    code_patterns: codePatterns,
    project_attributes: projectAttributes,
  };
}

/** How many dimensions the triggers populate (0 to 5). */
export function populatedDimensions(t: RuleTriggers): number {
  return [t.paths.length, t.operations.length, t.languages.length, t.code_patterns.length, Object.keys(t.project_attributes).length].filter((n) => n > 0).length;
}

/** The four verbs in their inflections (nothing looser: a trigger inferred from "update" or "remove" would surprise). */
const VERBS: readonly [RuleOperation, RegExp][] = [
  ["create", /\b(create|creates|created|creating)\b/i],
  ["modify", /\b(modify|modifies|modified|modifying)\b/i],
  ["delete", /\b(delete|deletes|deleted|deleting)\b/i],
  ["rename", /\b(rename|renames|renamed|renaming)\b/i],
];

function isPathLike(token: string): boolean {
  if (!/^[\w.\-/*{}[\]?!@+,]+$/.test(token) || token.length > TRIGGER_LIMITS.globMax) return false;
  if (token.includes("/") || token.includes("*") || isKnownFilename(token) || /^\.[\w-]+(\.[\w-]+)*$/.test(token)) return true;
  const dot = token.lastIndexOf(".");
  return dot > 0 && isKnownExtension(token.slice(dot));
}

function tryGlob(g: string): string | null {
  try {
    return checkGlob(g);
  } catch {
    return null;
  }
}

function tryPattern(p: string): string | null {
  try {
    return checkPattern(p);
  } catch {
    return null;
  }
}

/**
 * Triggers read from a lesson's or rule's text (SESSION-STATE §8): backticked paths and globs
 * (`src/db/**`, `package.json`), file extensions named on their own (".sql files" ->
 * `**\/*.sql`), the verbs create/modify/delete/rename in their inflections, and /regex/
 * literals (RE2). Deterministic; what does not compile is left out.
 */
export function inferTriggers(text: string): RuleTriggers {
  const paths: string[] = [];
  const patterns: string[] = [];
  // Each candidate is compiled once at most, and none once the list is full (a lesson may hold
  // thousands of backticked tokens).
  const tried = new Set<string>();
  const addPath = (g: string) => {
    if (paths.length >= TRIGGER_LIMITS.paths || tried.has(`p:${g}`)) return;
    tried.add(`p:${g}`);
    const ok = tryGlob(g);
    if (ok !== null && !paths.includes(ok)) paths.push(ok);
  };
  let programs = 0;
  const addPattern = (p: string) => {
    if (patterns.length >= TRIGGER_LIMITS.patterns || tried.has(`r:${p}`)) return;
    tried.add(`r:${p}`);
    const ok = tryPattern(p);
    if (ok === null || patterns.includes(ok)) return;
    const size = RE2JS.compile(ok).programSize();
    if (programs + size > TRIGGER_LIMITS.patternProgramTotal) return;
    programs += size;
    patterns.push(ok);
  };
  for (const m of text.matchAll(/`([^`\n]+)`/g)) {
    const token = (m[1] ?? "").trim();
    const literal = /^\/(.+)\/$/.exec(token);
    if (literal !== null && !isPathLike(token.slice(1))) addPattern(literal[1] ?? "");
    else if (/^\.[a-z0-9]{1,10}$/i.test(token) && isKnownExtension(token)) addPath(`**/*${token.toLowerCase()}`);
    else if (isPathLike(token)) addPath(token);
  }
  const outside = text.replace(/`[^`\n]*`/g, " ");
  for (const m of outside.matchAll(/(?:^|\s)\/((?:\\.|[^/\s\\])(?:\\.|[^/\n\\])*?)\/(?=$|[\s.,;:)])/gm)) {
    const body = m[1] ?? "";
    if (/[\\^$()[\]|+?*{}.]/.test(body)) addPattern(body);
  }
  for (const m of outside.matchAll(/(?:^|[\s(])\*?(\.[a-z0-9]{1,10})(?=$|[\s,;:)])/gim)) {
    const ext = (m[1] ?? "").toLowerCase();
    if (isKnownExtension(ext)) addPath(`**/*${ext}`);
  }
  const operations = VERBS.filter(([, re]) => re.test(outside)).map(([op]) => op);
  return { paths, operations, languages: [], code_patterns: patterns, project_attributes: {} };
}
