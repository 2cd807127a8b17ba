import type { CreatedBy } from "../conventions/record-event.ts";

// Build sessions (SESSION-STATE §3): the shapes the core and its stores share.

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
