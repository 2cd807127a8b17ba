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

/** Build-session states (SESSION-STATE §3). */
export const BUILD_SESSION_STATES = ["active", "ended"] as const;
/** A build-session state. */
export type BuildSessionState = (typeof BUILD_SESSION_STATES)[number];
/** Why a build session ended. */
export const END_REASONS = ["completed", "abandoned", "continued"] as const;
/** An end reason. */
export type EndReason = (typeof END_REASONS)[number];
/** PR states a session tracks. */
export const PR_STATES = ["draft", "open", "merged", "closed"] as const;
/** A PR state. */
export type PrState = (typeof PR_STATES)[number];

/** One line the next session should read first. */
export interface LeadLine {
  text: string;
  addedAt: Date;
  addedBy: CreatedBy;
}

/** Where a session stands, replaced whole by PUT current-state. */
export interface CurrentState {
  focus: string;
  next_steps: string[];
  blockers: string[];
  open_questions: string[];
  files_in_flight: string[];
  notes_md: string;
}

/** The empty current state of a new session. */
export const EMPTY_CURRENT_STATE: Readonly<CurrentState> = { focus: "", next_steps: [], blockers: [], open_questions: [], files_in_flight: [], notes_md: "" };

/** A pull request a session works on (keyed by url). */
export interface PullRequest {
  url: string;
  repo: string | null;
  number: number | null;
  title: string | null;
  state: PrState;
  head_sha: string | null;
}

/** The program an agent runs in. */
export interface SessionClient {
  program: string;
  model: string;
  host: string | null;
}

/** One working run of one agent (SESSION-STATE §3). Mutable: every write compares and sets `version`. */
export interface BuildSession {
  workspaceId: string;
  id: string;
  projectId: string;
  title: string;
  goal: string;
  client: SessionClient | null;
  state: BuildSessionState;
  endReason: EndReason | null;
  startedAt: Date;
  lastPingAt: Date;
  endedAt: Date | null;
  pingCount: number;
  activeSeconds: number;
  previousSessionId: string | null;
  nextSessionId: string | null;
  chainRootId: string;
  /** Newest first, at most 20. */
  leadLines: LeadLine[];
  summaryMd: string;
  learnings: string[];
  currentState: CurrentState;
  currentStateVersion: number;
  prs: PullRequest[];
  version: number;
  createdAt: Date;
  updatedAt: Date;
  /** The agent whose session it is. */
  createdBy: CreatedBy;
}

/** Filters of build-session search. */
export interface BuildSessionFilters {
  state: BuildSessionState | null;
  /** live or silent; needs `now` and `silenceMs`. */
  liveness: "live" | "silent" | null;
  aiAccountId: string | null;
  startedAfter: Date | null;
  startedBefore: Date | null;
  hasOpenPr: boolean | null;
  prUrl: string | null;
  chainRootId: string | null;
  q: string | null;
}

/** Backlog statuses (SESSION-STATE §5). */
export const BACKLOG_STATUSES = ["untriaged", "open", "in_progress", "resolved", "dismissed"] as const;
/** A backlog status. */
export type BacklogStatus = (typeof BACKLOG_STATUSES)[number];
/** The absorbing statuses. */
export const TERMINAL_BACKLOG_STATUSES: readonly BacklogStatus[] = ["resolved", "dismissed"];
/** Backlog item kinds. */
export const BACKLOG_KINDS = ["bug", "feature", "task", "chore", "spike"] as const;
/** A backlog kind. */
export type BacklogKind = (typeof BACKLOG_KINDS)[number];

/** How an item was closed, and notes added since. */
export interface BacklogClosing {
  prUrl: string | null;
  commitSha: string | null;
  notesMd: string[];
  reason: string | null;
}

/** An acknowledgement that an item is stale (snoozes it until `until`). */
export interface StalenessAck {
  at: Date;
  by: CreatedBy;
  reason: string;
  until: Date;
  count: number;
}

/** A backlog item. Mutable: every write compares and sets `version`; resolved and dismissed are absorbing. */
export interface BacklogItem {
  workspaceId: string;
  id: string;
  projectId: string;
  number: number;
  title: string;
  descriptionMd: string;
  acceptanceCriteriaMd: string;
  kind: BacklogKind;
  labels: string[];
  /** 0 highest .. 4 lowest. */
  priority: number;
  status: BacklogStatus;
  assigneeAiAccountId: string | null;
  discoveredFromId: string | null;
  duplicateOfId: string | null;
  source: { buildSessionId: string | null; decisionId: string | null; importRow: string | null };
  closing: BacklogClosing;
  resolvedAt: Date | null;
  dismissedAt: Date | null;
  lastActivityAt: Date;
  stalenessAck: StalenessAck | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  createdBy: CreatedBy;
}

/** Staleness thresholds of a project in milliseconds. */
export interface StalenessThresholds {
  openMs: number;
  inProgressMs: number;
}

/** Filters of backlog search. */
export interface BacklogFilters {
  q: string | null;
  statuses: BacklogStatus[] | null;
  priorityMin: number | null;
  priorityMax: number | null;
  kind: BacklogKind | null;
  label: string | null;
  assignee: string | null;
  unassigned: boolean;
  /** open and unassigned. */
  ready: boolean;
  createdAfter: Date | null;
  updatedAfter: Date | null;
}

/** Backlog orderings. */
export const BACKLOG_SORTS = ["priority", "newest", "oldest", "updated"] as const;
/** A backlog ordering. */
export type BacklogSort = (typeof BACKLOG_SORTS)[number];
