import type { CreatedBy } from "../conventions/record-event.ts";

// The decision log (SESSION-STATE §4): the shapes the core and its stores share.

/** Decision-log entry kinds. */
export const DECISION_KINDS = ["decision", "correction"] as const;
/** A decision-log entry kind. */
export type DecisionKind = (typeof DECISION_KINDS)[number];

/** Where a decision came from (SESSION-STATE §4). */
export const SOURCE_KINDS = ["session", "import", "pr", "commit", "url", "manual"] as const;
/** A source kind. */
export type SourceKind = (typeof SOURCE_KINDS)[number];

/** A decision's source. */
export interface SourceRef {
  kind: SourceKind;
  ref: string;
  url: string | null;
}

/** One option weighed in a decision. */
export interface Alternative {
  option: string;
  pros: string[];
  cons: string[];
  chosen: boolean;
}

/** One entry of the append-only decision log: never updated, never deleted. */
export interface DecisionEntry {
  workspaceId: string;
  id: string;
  projectId: string;
  /** Per project, from 1, in recording order. */
  number: number;
  kind: DecisionKind;
  title: string;
  contextMd: string;
  decisionMd: string;
  rationaleMd: string;
  alternatives: Alternative[];
  consequences: { good: string[]; bad: string[] };
  tags: string[];
  files: string[];
  buildSessionId: string | null;
  /** The author (the caller who recorded it). */
  createdBy: CreatedBy;
  decidedAt: Date;
  recordedAt: Date;
  /** Set exactly when kind is correction: the chain tip it supersedes. */
  supersedesId: string | null;
  /** The first entry of the chain (its own id for a decision). */
  chainRootId: string;
  source: SourceRef;
}

/** A stored entry with what is derived on read. */
export interface DecisionRow {
  entry: DecisionEntry;
  /** The correction that supersedes it, or null (status active). */
  supersededById: string | null;
}

/** An amendment of an entry's source: appended, never changing the entry. */
export interface SourceAmendment {
  workspaceId: string;
  id: string;
  entryId: string;
  source: SourceRef;
  reason: string;
  at: Date;
  by: CreatedBy;
}

/** Filters of the decision-log list. */
export interface DecisionListFilters {
  status: "active" | "superseded" | null;
  kind: DecisionKind | null;
  tag: string | null;
  authorId: string | null;
  buildSessionId: string | null;
  since: Date | null;
  until: Date | null;
  file: string | null;
}

/** One search hit. */
export interface DecisionSearchHit {
  row: DecisionRow;
  rank: number;
  /** An excerpt with the matched words between `**`. */
  snippet: string;
}

/** Per-author figures of a project's decision log. */
export interface DecisionAuthor {
  aiAccountId: string;
  friendlyName: string;
  entries: number;
  corrections: number;
  firstAt: Date;
  lastAt: Date;
}
