import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { RuleOperation, RuleTriggers } from "./rule.ts";
import { languagesOfPath } from "./languages.ts";
import { applicableRules, matchRule, type ChangeDescription, type MatchableRule } from "./rule-matcher.ts";
import { NO_TRIGGERS, populatedDimensions } from "./rule-triggers.ts";

// The applicable-rules matcher as a library (SESSION-STATE §8): a table per dimension, the
// vacuous-truth trap named explicitly, properties over random rules and changes, and RE2's
// linear time on a pattern that backtracking engines take exponential time on.

let ids = 0;
const rule = (triggers: Partial<RuleTriggers>, alwaysApply = false): MatchableRule => ({ id: `R${++ids}`, version: 1, alwaysApply, triggers: { ...NO_TRIGGERS, ...triggers } });
const change = (c: Partial<ChangeDescription>): ChangeDescription => ({ paths: [], operations: [], languages: [], code: [], projectAttributes: {}, ...c });
const matches = (r: MatchableRule, c: ChangeDescription) => matchRule(r, c) !== null;

describe("rule matcher: paths (picomatch, dot files included)", () => {
  it.each([
    ["src/**/*.ts", "src/a/b.ts", true],
    ["src/**/*.ts", "src/b.ts", true],
    ["src/**/*.ts", "lib/b.ts", false],
    ["src/**/*.ts", "src/b.tsx", false],
    ["**/*.yml", ".github/workflows/ci.yml", true],
    ["**/.env*", "config/.env.local", true],
    ["*.md", "README.md", true],
    ["*.md", "docs/a.md", false],
    ["packages/{core,postgres}/**", "packages/postgres/src/x.ts", true],
    ["packages/{core,postgres}/**", "packages/rest/src/x.ts", false],
    ["migrations/[0-9][0-9][0-9][0-9]_*.sql", "migrations/0011_x.sql", true],
    ["migrations/[0-9][0-9][0-9][0-9]_*.sql", "migrations/x.sql", false],
    ["Makefile", "Makefile", true],
    ["Makefile", "sub/Makefile", false],
  ])("glob %s against %s: %s", (glob, path, expected) => {
    const r = rule({ paths: [glob] });
    expect(matches(r, change({ paths: [path] }))).toBe(expected);
    if (expected) expect(matchRule(r, change({ paths: ["nothing/here", path] }))?.paths).toEqual([{ path, glob }]);
  });

  it("some path matching some glob is enough", () => {
    expect(matches(rule({ paths: ["a/**", "b/**"] }), change({ paths: ["z/1", "b/2"] }))).toBe(true);
  });
});

describe("rule matcher: operations, languages, code patterns, project attributes", () => {
  it.each([
    [["modify"], ["modify"], true],
    [["create", "delete"], ["delete", "rename"], true],
    [["create"], ["modify"], false],
  ] as [RuleOperation[], RuleOperation[], boolean][])("operations %j vs %j: %s", (ruleOps, changeOps, expected) => {
    expect(matches(rule({ operations: ruleOps }), change({ operations: changeOps }))).toBe(expected);
  });

  it.each([
    [["typescript"], ["typescript", "sql"], true],
    [["python"], ["typescript"], false],
    [["c++"], ["c", "c++", "objective-c"], true],
  ])("languages %j vs %j: %s", (ruleLangs, changeLangs, expected) => {
    expect(matches(rule({ languages: ruleLangs }), change({ languages: changeLangs }))).toBe(expected);
  });

  it.each([
    ["src/a.ts", ["typescript"]],
    ["src/a.d.ts", ["typescript"]],
    ["a.py", ["python"]],
    ["Dockerfile", ["dockerfile"]],
    ["x.unknownext", []],
    ["noext", []],
  ])("languages inferred from %s: %j", (path, expected) => {
    expect(languagesOfPath(path)).toEqual(expected);
  });

  it.each([
    ["console\\.log\\(", ["let x = 1;", "console.log(x)"], 1],
    ["^import .* from \"lodash\"", ['import { a } from "lodash"'], 0],
    ["DROP\\s+TABLE", ["drop table x"], -1],
    ["(?i)DROP\\s+TABLE", ["drop table x"], 0],
  ])("pattern %s over %j: snippet %i", (pattern, code, index) => {
    const m = matchRule(rule({ code_patterns: [pattern] }), change({ code }));
    expect(m === null ? -1 : m.code_patterns[0]?.snippet_index).toBe(index);
  });

  it.each([
    [{ runtime: ["node"] }, { runtime: "node" }, true],
    [{ runtime: ["node", "bun"] }, { runtime: "bun", db: "pg" }, true],
    [{ runtime: ["node"], db: ["pg"] }, { runtime: "node" }, false],
    [{ runtime: ["node"] }, { runtime: "deno" }, false],
  ])("attributes %j vs %j: %s", (ruleAttrs, changeAttrs, expected) => {
    expect(matches(rule({ project_attributes: ruleAttrs }), change({ projectAttributes: changeAttrs }))).toBe(expected);
  });
});

describe("rule matcher: every populated dimension must match; an empty one in the change never does", () => {
  const full = change({ paths: ["src/a.ts"], operations: ["modify"], languages: ["typescript"], code: ["TODO"], projectAttributes: { runtime: "node" } });
  const populated: [keyof RuleTriggers, Partial<RuleTriggers>, Partial<ChangeDescription>][] = [
    ["paths", { paths: ["src/**"] }, { paths: [] }],
    ["operations", { operations: ["modify"] }, { operations: [] }],
    ["languages", { languages: ["typescript"] }, { languages: [] }],
    ["code_patterns", { code_patterns: ["TODO"] }, { code: [] }],
    ["project_attributes", { project_attributes: { runtime: ["node"] } }, { projectAttributes: {} }],
  ];
  it.each(populated)("a rule populating %s does not match a change that leaves it empty", (_name, triggers, emptied) => {
    const r = rule(triggers);
    expect(matches(r, full)).toBe(true);
    expect(matches(r, { ...full, ...emptied })).toBe(false);
  });

  it("a rule populating every dimension needs all of them; one miss is enough to fail", () => {
    const r = rule({ paths: ["src/**"], operations: ["modify"], languages: ["typescript"], code_patterns: ["TODO"], project_attributes: { runtime: ["node"] } });
    expect(matches(r, full)).toBe(true);
    expect(matches(r, { ...full, operations: ["create"] })).toBe(false);
    expect(matches(r, { ...full, paths: ["lib/a.ts"] })).toBe(false);
  });

  it("a rule with no trigger matches nothing unless it always applies; always_apply matches an empty change", () => {
    expect(matches(rule({}), full)).toBe(false);
    expect(matches(rule({}, true), change({}))).toBe(true);
  });

  it("orders must first, then more populated dimensions, then slug", () => {
    const mk = (slug: string, level: "must" | "should" | "may", t: Partial<RuleTriggers>) => ({ ...rule(t), slug, level });
    const rules = [mk("b", "should", { paths: ["src/**"] }), mk("a", "should", { paths: ["src/**"] }), mk("c", "should", { paths: ["src/**"], operations: ["modify"] }), mk("z", "must", { paths: ["**"] })];
    expect(applicableRules(rules, full).map((m) => m.rule.slug)).toEqual(["z", "c", "a", "b"]);
  });
});

// ---- properties ------------------------------------------------------------------------------

const SEGMENTS = ["src", "lib", "a", "b", ".github", "docs"];
const FILES = ["x.ts", "y.py", "z.md", ".env", "Makefile", "w.sql"];
const arbPath = fc.tuple(fc.array(fc.constantFrom(...SEGMENTS), { maxLength: 3 }), fc.constantFrom(...FILES)).map(([dirs, f]) => [...dirs, f].join("/"));
const arbGlob = fc.constantFrom("src/**", "**/*.ts", "**/*.py", "lib/*", "**/.env", "docs/**/*.md", "**", "a/**/b/*", "*.sql", "**/Makefile");
const arbOp = fc.constantFrom<RuleOperation>("create", "modify", "delete", "rename");
const arbLang = fc.constantFrom("typescript", "python", "markdown", "sql", "makefile");
const arbPattern = fc.constantFrom("TODO", "console\\.log", "^import", "x{2,}", "[0-9]+");
const arbSnippet = fc.constantFrom("TODO later", "console.log(1)", "import a", "xxx", "42", "plain");
const arbAttrs = fc.dictionary(fc.constantFrom("runtime", "db"), fc.constantFrom("node", "bun", "pg"), { maxKeys: 2 });
const arbTriggers: fc.Arbitrary<RuleTriggers> = fc.record({
  paths: fc.uniqueArray(arbGlob, { maxLength: 3 }),
  operations: fc.uniqueArray(arbOp, { maxLength: 2 }),
  languages: fc.uniqueArray(arbLang, { maxLength: 2 }),
  code_patterns: fc.uniqueArray(arbPattern, { maxLength: 2 }),
  project_attributes: fc.dictionary(fc.constantFrom("runtime", "db"), fc.uniqueArray(fc.constantFrom("node", "bun", "pg"), { minLength: 1, maxLength: 2 }), { maxKeys: 2 }),
});
const arbChange: fc.Arbitrary<ChangeDescription> = fc.record({
  paths: fc.array(arbPath, { maxLength: 4 }),
  operations: fc.uniqueArray(arbOp, { maxLength: 3 }),
  languages: fc.uniqueArray(arbLang, { maxLength: 3 }),
  code: fc.array(arbSnippet, { maxLength: 3 }),
  projectAttributes: arbAttrs,
});
const DIMENSIONS = ["paths", "operations", "languages", "code_patterns", "project_attributes"] as const;
const isEmpty = (t: RuleTriggers, d: (typeof DIMENSIONS)[number]) => (d === "project_attributes" ? Object.keys(t.project_attributes).length === 0 : t[d].length === 0);
const emptyIn = (c: ChangeDescription, d: (typeof DIMENSIONS)[number]) =>
  d === "paths" ? c.paths.length === 0 : d === "operations" ? c.operations.length === 0 : d === "languages" ? c.languages.length === 0 : d === "code_patterns" ? c.code.length === 0 : Object.keys(c.projectAttributes).length === 0;

describe("rule matcher: properties", () => {
  it("populating one more dimension never adds a match", () => {
    fc.assert(
      fc.property(arbTriggers, arbTriggers, fc.constantFrom(...DIMENSIONS), arbChange, (base, donor, d, c) => {
        // A rule without any trigger cannot be derived (400 no_trigger): the base populates one.
        fc.pre(populatedDimensions(base) > 0 && isEmpty(base, d) && !isEmpty(donor, d));
        const narrower = { ...base, [d]: donor[d] };
        if (matches(rule(narrower), c)) expect(matches(rule(base), c)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it("a dimension the rule populates and the change leaves empty never matches", () => {
    fc.assert(
      fc.property(arbTriggers, arbChange, fc.constantFrom(...DIMENSIONS), (t, c, d) => {
        fc.pre(!isEmpty(t, d) && emptyIn(c, d));
        expect(matches(rule(t), c)).toBe(false);
      }),
      { numRuns: 500 },
    );
  });

  it("always_apply always matches", () => {
    fc.assert(fc.property(arbTriggers, arbChange, (t, c) => {
        expect(matches(rule(t, true), c)).toBe(true);
      }), { numRuns: 300 });
  });
});

describe("rule matcher: patterns run in linear time (RE2)", () => {
  // Catastrophic for a backtracking engine (exponential in the input length); RE2 answers in one
  // pass. The test's own timeout is the bound: it fails if matching does not end.
  it("a pathological pattern over a long input finishes", { timeout: 5_000 }, () => {
    const r = rule({ code_patterns: ["(a+)+$", "(x+x+)+y", "^(a|aa)+$"] });
    const input = `${"a".repeat(50_000)}!${"x".repeat(50_000)}`;
    expect(matchRule(r, change({ code: [input] }))).toBeNull();
    expect(matchRule(r, change({ code: [`${input}y`] }))?.code_patterns.map((p) => p.pattern)).toEqual(["(x+x+)+y"]);
  });
});
