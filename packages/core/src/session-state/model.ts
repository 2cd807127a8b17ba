// Session-state records (SESSION-STATE.md): the shapes the core and its stores share.

/** Who created a record: the calling AI account, from the credential (never from the body). */
export interface CreatedBy {
  aiAccountId: string;
  friendlyName: string;
}

/** Project states (SESSION-STATE §2). */
export const PROJECT_STATES = ["active", "archived"] as const;
/** A project state. */
export type ProjectState = (typeof PROJECT_STATES)[number];

/** A project's settings as ISO 8601 durations and counts (SESSION-STATE §2; defaults in `DEFAULT_PROJECT_SETTINGS`). */
export interface ProjectSettings {
  backlog_stale_after: string;
  backlog_in_progress_stale_after: string;
  session_silence_after: string;
  candidate_min_sessions: number;
}

/** Settings of a project that names none. */
export const DEFAULT_PROJECT_SETTINGS: Readonly<ProjectSettings> = {
  backlog_stale_after: "P30D",
  backlog_in_progress_stale_after: "P7D",
  session_silence_after: "PT30M",
  candidate_min_sessions: 2,
};

/** A project: the unit session-state records belong to. */
export interface Project {
  workspaceId: string;
  id: string;
  name: string;
  /** Unique in the workspace, archived projects included. */
  slug: string;
  description: string;
  repositoryUrl: string | null;
  attributes: Record<string, string>;
  settings: ProjectSettings;
  state: ProjectState;
  /** At most one project of a workspace is the default. */
  isDefault: boolean;
  archivedAt: Date | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  createdBy: CreatedBy;
}

/** The fields PATCH /projects/{id} may change. */
export interface ProjectChanges {
  name?: string;
  description?: string;
  attributes?: Record<string, string>;
  settings?: ProjectSettings;
}

/** One change of a mutable record (SESSION-STATE §1 History). */
export interface RecordEvent {
  workspaceId: string;
  id: string;
  projectId: string;
  /** `project`, `backlog_item`, `build_session`. */
  subjectType: string;
  subjectId: string;
  /** e.g. `created`, `updated`, `archived`, `triaged`. */
  eventType: string;
  actor: CreatedBy;
  oldValue: Record<string, unknown> | null;
  newValue: Record<string, unknown> | null;
  /** The build session the change happened in, when known. */
  buildSessionId: string | null;
  at: Date;
}

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
