import type { BacklogItem } from "../backlog/backlog-item.ts";
import type { BuildSession } from "../build-sessions/build-session.ts";
import type { DecisionEntry } from "../decision-log/decision-entry.ts";
import type { RecordEvent } from "../conventions/record-event.ts";
import type { CandidateEvidence, Detector } from "./lesson-candidate.ts";
import { SimilarityIndex, tokenOrder } from "../text/similarity-index.ts";
import { keywordSet } from "../text/tokens.ts";
import { oneLine } from "../text/markdown-text.ts";
import { sha256Hex } from "../../encoding/sha256-hex.ts";

// The five deterministic detectors of lesson candidates (SESSION-STATE §7): pure functions from
// a snapshot of a project's records in a window to proposals. Merging proposals with the stored
// candidates (and dropping evidence already counted) is lesson-candidates.ts's job.

/** Similarity at which two texts are "the same thing" (SESSION-STATE §1). */
export const SAME_THING = 0.6;
/** Detectors whose candidates are ready at once and weigh 3 in the score. */
export const STRONG_DETECTORS: readonly Detector[] = ["decision_correction", "backlog_regression"];
/** Lead-line prefixes that mark a learning. */
const LEAD_PREFIX = /^\s*(LESSON|GOTCHA):\s*/i;
const EXCERPT_MAX = 500;

/** What a detector proposes: a candidate's text, its keyword set and its evidence. */
export interface Proposal {
  detector: Detector;
  title: string;
  bodyMd: string;
  /** Sorted keyword set: the fingerprint's input. */
  keywords: string[];
  evidence: CandidateEvidence[];
  /** Only add to a similar pending candidate; never create one (a repeated note seen in one session so far). */
  mergeOnly?: boolean;
  /** May merge with a pending candidate of the same detector at Jaccard >= 0.6 (otherwise only an equal fingerprint merges). */
  similarMerges: boolean;
}

/** The records a detection run reads. */
export interface DetectionSnapshot {
  since: Date;
  until: Date;
  /** Sessions of the project changed in the window. */
  sessions: readonly BuildSession[];
  /** Corrections recorded in the window, each with its chain's root entry. */
  corrections: readonly { correction: DecisionEntry; root: DecisionEntry }[];
  /** Items created in the window. */
  newItems: readonly BacklogItem[];
  /** The project's resolved items. */
  resolvedItems: readonly BacklogItem[];
  /** Reassign and staleness-acknowledgement events of backlog items in the window, with their item. */
  churn: readonly { event: RecordEvent; item: BacklogItem }[];
}

const excerpt = (text: string) => (text.length <= EXCERPT_MAX ? text : `${text.slice(0, EXCERPT_MAX - 1)}…`);
const inWindow = (at: Date, s: DetectionSnapshot) => at.getTime() >= s.since.getTime() && at.getTime() <= s.until.getTime();
const evidence = (kind: string, refId: string, buildSessionId: string | null, text: string, at: Date): CandidateEvidence => ({ kind, ref_id: refId, build_session_id: buildSessionId, excerpt: excerpt(text), observed_at: at.toISOString() });

/**
 * Merges proposals of one detector that are the same thing (Jaccard >= 0.6), in order; the first
 * one's text wins. Each proposal joins the earliest cluster it resembles, found through a
 * similarity index (comparing every pair was quadratic in the window's records).
 */
function clusterBySimilarity(items: Proposal[]): Proposal[] {
  const out: Proposal[] = [];
  const index = new SimilarityIndex<number>(SAME_THING, tokenOrder(items.map((p) => p.keywords)));
  for (const p of items) {
    const hit = out[index.similar(p.keywords)[0]?.id ?? -1];
    if (hit !== undefined) {
      hit.evidence.push(...p.evidence);
      continue;
    }
    index.add(out.length, p.keywords);
    out.push({ ...p, evidence: [...p.evidence] });
  }
  return out;
}

/** session_learning: `learnings[]` of sessions ended in the window, and lead lines starting LESSON: or GOTCHA: added in it. */
export function detectSessionLearnings(s: DetectionSnapshot): Proposal[] {
  const found: Proposal[] = [];
  const add = (text: string, ev: CandidateEvidence) => {
    const keywords = keywordSet(text);
    if (keywords.length === 0) return;
    found.push({ detector: "session_learning", title: oneLine(text, 120), bodyMd: text, keywords, evidence: [ev], similarMerges: true });
  };
  for (const session of s.sessions) {
    if (session.endedAt !== null && inWindow(session.endedAt, s)) session.learnings.forEach((l, i) => add(l, evidence("learning", `${session.id}:learning:${i}`, session.id, l, session.endedAt as Date)));
    for (const lead of session.leadLines) {
      if (!LEAD_PREFIX.test(lead.text) || !inWindow(lead.addedAt, s)) continue;
      const text = lead.text.replace(LEAD_PREFIX, "");
      add(text, evidence("lead_line", `${session.id}:lead:${lead.addedAt.toISOString()}`, session.id, text, lead.addedAt));
    }
  }
  return clusterBySimilarity(found);
}

/** repeated_note: similar lines of current_state.blockers and open_questions in two or more sessions. */
export function detectRepeatedNotes(s: DetectionSnapshot): Proposal[] {
  const lines: Proposal[] = [];
  for (const session of s.sessions) {
    for (const [kind, list] of [["blocker", session.currentState.blockers], ["open_question", session.currentState.open_questions]] as const) {
      for (const line of list) {
        const keywords = keywordSet(line);
        if (keywords.length === 0) continue;
        const label = kind === "blocker" ? "Repeated blocker" : "Repeated open question";
        lines.push({ detector: "repeated_note", title: oneLine(`${label}: ${line}`, 120), bodyMd: `${label} in several sessions: ${line}`, keywords, evidence: [evidence(kind, `${session.id}:${kind}:${sha256Hex(line).slice(0, 16)}`, session.id, line, session.updatedAt)], similarMerges: true });
      }
    }
  }
  return clusterBySimilarity(lines).map((p) => ({ ...p, mergeOnly: new Set(p.evidence.map((e) => e.build_session_id)).size < 2 }));
}

/** decision_correction: one candidate per chain whose entries were corrected in the window: "Decision #N reversed". */
export function detectDecisionCorrections(s: DetectionSnapshot): Proposal[] {
  const byChain = new Map<string, Proposal>();
  for (const { correction, root } of s.corrections) {
    const ev = evidence("decision", correction.id, correction.buildSessionId, `${oneLine(correction.decisionMd, 240)} Why: ${oneLine(correction.rationaleMd, 240)}`, correction.recordedAt);
    const existing = byChain.get(root.id);
    if (existing !== undefined) {
      existing.evidence.push(ev);
      continue;
    }
    const title = oneLine(`Decision #${root.number} reversed: ${root.title}`, 200);
    byChain.set(root.id, {
      detector: "decision_correction",
      title,
      bodyMd: `Decision #${root.number} "${root.title}" was corrected: ${oneLine(correction.decisionMd, 300)}\n\nWhy it changed: ${oneLine(correction.rationaleMd, 300)}`,
      keywords: [...new Set([...keywordSet(`${root.title} reversed`), `decision${root.number}`])].sort(),
      evidence: [ev],
      similarMerges: false,
    });
  }
  return [...byChain.values()];
}

/** backlog_regression: an item created in the window that duplicates, or resembles (>= 0.6), a resolved one (the first such, in the resolved items' order). */
export function detectBacklogRegressions(s: DetectionSnapshot): Proposal[] {
  const byOriginal = new Map<string, Proposal>();
  const resolvedById = new Map<string, BacklogItem>();
  for (const r of s.resolvedItems) if (!resolvedById.has(r.id)) resolvedById.set(r.id, r);
  const resolvedWords = s.resolvedItems.map((r) => keywordSet(r.title));
  const newWords = s.newItems.map((item) => keywordSet(item.title));
  const index = new SimilarityIndex<number>(SAME_THING, tokenOrder([...resolvedWords, ...newWords]));
  resolvedWords.forEach((words, i) => index.add(i, words));
  for (const [n, item] of s.newItems.entries()) {
    const duplicateOf = item.duplicateOfId === null ? undefined : resolvedById.get(item.duplicateOfId);
    const original =
      (duplicateOf !== undefined && duplicateOf.id !== item.id ? duplicateOf : undefined) ??
      index
        .similar(newWords[n] ?? [])
        .map(({ id }) => s.resolvedItems[id])
        .find((r) => r !== undefined && r.id !== item.id && r.createdAt.getTime() <= item.createdAt.getTime());
    if (original === undefined) continue;
    const ev = evidence("backlog", item.id, item.source.buildSessionId, `#${item.number} ${item.title}`, item.createdAt);
    const existing = byOriginal.get(original.id);
    if (existing !== undefined) {
      existing.evidence.push(ev);
      continue;
    }
    byOriginal.set(original.id, {
      detector: "backlog_regression",
      title: oneLine(`Regression: ${original.title}`, 200),
      bodyMd: `Backlog item #${original.number} "${original.title}" was resolved, and came back as #${item.number} "${item.title}".`,
      keywords: [...new Set([...keywordSet(original.title), "regression", `item${original.number}`])].sort(),
      evidence: [ev],
      similarMerges: false,
    });
  }
  return [...byOriginal.values()];
}

/** backlog_churn: two or more reassigns or staleness acknowledgements of one item in the window. */
export function detectBacklogChurn(s: DetectionSnapshot): Proposal[] {
  const byItem = new Map<string, { item: BacklogItem; events: RecordEvent[] }>();
  for (const { event, item } of s.churn) {
    const entry = byItem.get(item.id) ?? { item, events: [] };
    entry.events.push(event);
    byItem.set(item.id, entry);
  }
  return [...byItem.values()]
    .filter((e) => e.events.length >= 2)
    .map(({ item, events }) => ({
      detector: "backlog_churn" as const,
      title: oneLine(`Churn: ${item.title}`, 200),
      bodyMd: `Backlog item #${item.number} "${item.title}" keeps being handed on or snoozed (${events.length} reassignments or staleness acknowledgements).`,
      keywords: [...new Set([...keywordSet(item.title), "churn", `item${item.number}`])].sort(),
      evidence: events.map((e) => evidence("backlog_event", e.id, e.buildSessionId, `${e.eventType}: ${reasonOf(e)}`, e.at)),
      similarMerges: false,
    }));
}

function reasonOf(e: RecordEvent): string {
  const reason = e.newValue?.["reason"];
  return typeof reason === "string" ? reason : "";
}

/** Every detector, by name. */
export const DETECTOR_FUNCTIONS: Readonly<Record<Detector, (s: DetectionSnapshot) => Proposal[]>> = {
  session_learning: detectSessionLearnings,
  repeated_note: detectRepeatedNotes,
  decision_correction: detectDecisionCorrections,
  backlog_regression: detectBacklogRegressions,
  backlog_churn: detectBacklogChurn,
};

/** The fingerprint of a keyword set: SHA-256 of the sorted words joined by spaces. */
export function fingerprintOf(keywords: readonly string[]): string {
  return sha256Hex([...keywords].sort().join(" "));
}
