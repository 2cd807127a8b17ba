import { RE2JS } from "re2js";
import { RULE_LEVELS, type Rule, type RuleOperation } from "./rule.ts";
import { compileGlob } from "./path-glob.ts";
import { populatedDimensions } from "./rule-triggers.ts";

// The applicable-rules matcher (SESSION-STATE §8): pure, no I/O. A rule matches a change when it
// is always_apply, or when EVERY dimension it populates matches; a dimension the rule populates
// and the change leaves empty does not match. Globs and patterns are matched in linear time by
// RE2 automata (DFA first; stored patterns meet request input): path-glob.ts, re2js.

/** A change as the matcher sees it (already checked: relative paths, known operations). */
export interface ChangeDescription {
  paths: readonly string[];
  operations: readonly RuleOperation[];
  /** Named by the caller, else inferred from the paths' extensions (lower-case Linguist names). */
  languages: readonly string[];
  /** Code snippets. */
  code: readonly string[];
  /** The project's stored attributes with the request's values over them. */
  projectAttributes: Readonly<Record<string, string>>;
}

/** What matched, dimension by dimension. */
export interface RuleMatch {
  paths: { path: string; glob: string }[];
  operations: RuleOperation[];
  languages: string[];
  code_patterns: { pattern: string; snippet_index: number }[];
  project_attributes: Record<string, string>;
}

/** The parts of a rule the matcher reads. */
export type MatchableRule = Pick<Rule, "id" | "version" | "alwaysApply" | "triggers">;

interface CompiledRule {
  globs: { glob: string; test: (path: string) => boolean }[];
  patterns: { pattern: string; re: RE2JS }[];
}

/**
 * Compiled globs and patterns per rule id and version (rules are immutable), least recently used
 * first out: at most this many automata kept in all. Each keeps the DFA states it has built (up
 * to a few hundred KB for the widest glob the limits allow), so the bound is on automata, not rules.
 */
const CACHE_AUTOMATA_MAX = 5_000;
const compiled = new Map<string, CompiledRule>();
let cachedAutomata = 0;
const automataOf = (c: CompiledRule) => c.globs.length + c.patterns.length;

function compile(rule: MatchableRule): CompiledRule {
  const key = `${rule.id}:${rule.version}`;
  const hit = compiled.get(key);
  if (hit !== undefined) {
    compiled.delete(key);
    compiled.set(key, hit);
    return hit;
  }
  const c: CompiledRule = {
    // A stored glob the matcher refuses (written before globs were checked as now) never matches.
    globs: rule.triggers.paths.map((glob) => {
      const c = compileGlob(glob);
      return { glob, test: c.ok ? (path: string) => c.glob.test(path) : () => false };
    }),
    patterns: rule.triggers.code_patterns.map((pattern) => ({ pattern, re: RE2JS.compile(pattern) })),
  };
  compiled.set(key, c);
  cachedAutomata += automataOf(c);
  while (cachedAutomata > CACHE_AUTOMATA_MAX && compiled.size > 1) {
    const [oldest, entry] = compiled.entries().next().value as [string, CompiledRule];
    compiled.delete(oldest);
    cachedAutomata -= automataOf(entry);
  }
  return c;
}

/**
 * What of `change` matches `rule`, or null when the rule does not apply. An always_apply rule
 * always applies (what else matched is still reported).
 */
export function matchRule(rule: MatchableRule, change: ChangeDescription): RuleMatch | null {
  const t = rule.triggers;
  if (!rule.alwaysApply && populatedDimensions(t) === 0) return null;
  // Cheap dimensions first; a rule that does not always apply stops at its first miss.
  const stop = !rule.alwaysApply;
  const match: RuleMatch = { paths: [], operations: [], languages: [], code_patterns: [], project_attributes: {} };
  match.operations = t.operations.filter((op) => change.operations.includes(op));
  if (stop && t.operations.length > 0 && match.operations.length === 0) return null;
  for (const k of Object.keys(t.project_attributes)) {
    const v = change.projectAttributes[k];
    if (v !== undefined && (t.project_attributes[k] ?? []).includes(v)) match.project_attributes[k] = v;
    else if (stop) return null;
  }
  match.languages = t.languages.filter((l) => change.languages.includes(l));
  if (stop && t.languages.length > 0 && match.languages.length === 0) return null;
  const c = compile(rule);
  for (const path of change.paths) {
    const g = c.globs.find((x) => x.test(path));
    if (g !== undefined) match.paths.push({ path, glob: g.glob });
  }
  if (stop && t.paths.length > 0 && match.paths.length === 0) return null;
  for (const p of c.patterns) {
    // test() runs RE2's DFA (a Matcher's find() would run the slower NFA over every snippet).
    const i = change.code.findIndex((snippet) => p.re.test(snippet));
    if (i >= 0) match.code_patterns.push({ pattern: p.pattern, snippet_index: i });
  }
  if (stop && t.code_patterns.length > 0 && match.code_patterns.length === 0) return null;
  return match;
}

/** The rules that apply to `change`, ordered: must first (then should, may), then more populated dimensions, then slug. */
export function applicableRules<R extends MatchableRule & Pick<Rule, "level" | "slug">>(rules: readonly R[], change: ChangeDescription): { rule: R; matched: RuleMatch }[] {
  const out: { rule: R; matched: RuleMatch }[] = [];
  for (const rule of rules) {
    const matched = matchRule(rule, change);
    if (matched !== null) out.push({ rule, matched });
  }
  return out.sort(
    (a, b) =>
      RULE_LEVELS.indexOf(a.rule.level) - RULE_LEVELS.indexOf(b.rule.level) ||
      populatedDimensions(b.rule.triggers) - populatedDimensions(a.rule.triggers) ||
      (a.rule.slug < b.rule.slug ? -1 : a.rule.slug > b.rule.slug ? 1 : 0),
  );
}
