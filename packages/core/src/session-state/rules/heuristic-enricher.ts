import { canonicalJson } from "../../idempotency/canonical-json.ts";
import type { Enricher, EnrichmentInput } from "../../ports.ts";
import type { Enrichment, RelatedRule, Rule } from "./rule.ts";
import { inferTriggers } from "./rule-triggers.ts";
import { SimilarityIndex, tokenOrder } from "../text/similarity-index.ts";
import { jaccard, keywordSet, tokenize } from "../text/tokens.ts";
import { sha256Hex } from "../../encoding/sha256-hex.ts";
import { stripMarkdown } from "../text/markdown-text.ts";

/** Jaccard thresholds (SESSION-STATE §1): the same scope, the same thing. */
export const RELATED_AT = 0.3;
export const DUPLICATE_AT = 0.6;
const KEYWORDS_KEPT = 10;

/** The text of a rule the heuristics read. */
const ruleText = (r: Pick<Rule, "title" | "bodyMd">) => `${r.title}\n${r.bodyMd}`;

/** The SHA-256 of what an enrichment depends on: the rule's content, its lesson's text, the other active rules (ids and versions) and the enricher. */
export function enrichmentInputSha256(input: EnrichmentInput, enricher: string): string {
  const { rule, lesson } = input;
  return sha256Hex(
    canonicalJson({
      enricher,
      rule: { title: rule.title, body_md: rule.bodyMd, level: rule.level, always_apply: rule.alwaysApply, triggers: rule.triggers },
      lesson: lesson === null ? null : { title: lesson.title, body_md: lesson.bodyMd, why_md: lesson.whyMd },
      others: input.others.filter((o) => o.id !== rule.id).map((o) => `${o.id}:${o.title}`).sort(),
    }),
  );
}

/** The most frequent keywords of a text (ties by the word), at most ten. */
function topKeywords(text: string): string[] {
  const counts = new Map<string, number>();
  for (const t of tokenize(text)) if (t.length >= 3 && !/^\d+$/.test(t)) counts.set(t, (counts.get(t) ?? 0) + 1);
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, KEYWORDS_KEPT)
    .map(([w]) => w);
}

const NEGATIVE = /^\s*(?:[-*]\s*)?(?:don't|do not|never|avoid|must not|should not)\b[:\s]*/i;
const POSITIVE = /^\s*(?:[-*]\s*)?(?:do|always|use|prefer|must|should)\b[:\s]*/i;

/**
 * Instruction lines of each kind a rule's conflicts are read from (the first ones): comparing Do
 * and Don't lines is quadratic in their number when they share words, and a rule body holds up
 * to 12,000 characters (DESIGN §2c).
 */
export const INSTRUCTIONS_READ = 100;

/** The rule's instructions split into what it says to do and what it says not to do (keyword sets; at most INSTRUCTIONS_READ of each). */
export function instructions(md: string): { do: string[][]; dont: string[][] } {
  const out = { do: [] as string[][], dont: [] as string[][] };
  for (const raw of md.split("\n")) {
    if (out.do.length >= INSTRUCTIONS_READ && out.dont.length >= INSTRUCTIONS_READ) break;
    const line = stripMarkdown(raw);
    if (NEGATIVE.test(line)) {
      if (out.dont.length < INSTRUCTIONS_READ) out.dont.push(keywordSet(line.replace(NEGATIVE, "")));
    } else if (POSITIVE.test(line) && out.do.length < INSTRUCTIONS_READ) out.do.push(keywordSet(line.replace(POSITIVE, "")));
  }
  return out;
}

/** Whether two rules share a scope: one always applies, or they share a glob or a language, or neither names paths or languages. */
function sharedScope(a: Rule, b: Rule): boolean {
  if (a.alwaysApply || b.alwaysApply) return true;
  const ta = a.triggers;
  const tb = b.triggers;
  if (ta.paths.some((p) => tb.paths.includes(p)) || ta.languages.some((l) => tb.languages.includes(l))) return true;
  return ta.paths.length === 0 && tb.paths.length === 0 && ta.languages.length === 0 && tb.languages.length === 0;
}

/** Whether some Do line and some Don't line share at least the "same scope" part of their words (through a similarity index: a rule may hold thousands of lines). */
function clash(dos: readonly string[][], donts: readonly string[][]): boolean {
  if (dos.length === 0 || donts.length === 0) return false;
  const index = new SimilarityIndex<number>(RELATED_AT, tokenOrder([...dos, ...donts]));
  donts.forEach((n, i) => index.add(i, n));
  return dos.some((d) => index.similar(d).length > 0);
}

/** Whether one rule says to do what the other says not to (their instructions, read once each). */
function opposite(ia: ReturnType<typeof instructions>, ib: ReturnType<typeof instructions>): boolean {
  return clash(ia.do, ib.dont) || clash(ib.do, ia.dont);
}

const related = (r: Rule, similarity: number): RelatedRule => ({ rule_id: r.id, slug: r.slug, similarity: Math.round(similarity * 1000) / 1000 });

/**
 * The heuristic enricher ("heuristic-v1"): keywords by frequency, triggers read from the rule's
 * and its lesson's text, related (Jaccard >= 0.3) and duplicate (>= 0.6) active rules of the
 * project, conflicts (a shared scope and opposite Do / Don't lines), and a token estimate
 * (characters / 4). No model.
 */
export const HEURISTIC_ENRICHER: Enricher = {
  name: "heuristic-v1",
  enrich(input: EnrichmentInput, now: Date): Enrichment {
    const { rule, lesson } = input;
    const text = ruleText(rule);
    const tokens = keywordSet(text);
    const others = input.others.filter((o) => o.id !== rule.id).sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
    const scored = others.map((o) => ({ o, s: jaccard(tokens, keywordSet(ruleText(o))) }));
    const own = instructions(rule.bodyMd);
    return {
      keywords: topKeywords(text),
      suggested_triggers: inferTriggers(`${text}\n${lesson === null ? "" : `${lesson.title}\n${lesson.bodyMd}\n${lesson.whyMd}`}`),
      related: scored.filter((x) => x.s >= RELATED_AT).map((x) => related(x.o, x.s)),
      duplicates: scored.filter((x) => x.s >= DUPLICATE_AT).map((x) => related(x.o, x.s)),
      conflicts: scored.filter((x) => sharedScope(rule, x.o) && opposite(own, instructions(x.o.bodyMd))).map((x) => ({ ...related(x.o, x.s), reason: "shared scope and opposite instructions" })),
      token_estimate: Math.ceil(text.length / 4),
      input_sha256: enrichmentInputSha256(input, "heuristic-v1"),
      enricher: "heuristic-v1",
      computed_at: now.toISOString(),
    };
  },
};
