import type { CreatedBy } from "../conventions/record-event.ts";

// The backlog (SESSION-STATE §5): the shapes the core and its stores share.

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
