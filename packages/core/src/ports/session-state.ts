import type { CandidateFilters, LessonCandidate, CandidateStatus, Detector } from "../session-state/lesson-candidates/lesson-candidate.ts";
import type { Enrichment, Rule, RuleFilters } from "../session-state/rules/rule.ts";
import type { Lesson, LessonFilters, LessonObservation, LessonSort, LessonStatus } from "../session-state/lessons/lesson.ts";
import type { ImportRecord, ImportRow } from "../session-state/imports/import-record.ts";
import type { UsageDayRow, UsageFigures, UsageReport } from "../session-state/usage/usage-report.ts";
import type { BacklogFilters, BacklogItem, BacklogSort, BacklogStatus, StalenessThresholds } from "../session-state/backlog/backlog-item.ts";
import type { BuildSession, BuildSessionFilters } from "../session-state/build-sessions/build-session.ts";
import type { DecisionAuthor, DecisionEntry, DecisionListFilters, DecisionRow, DecisionSearchHit, SourceAmendment } from "../session-state/decision-log/decision-entry.ts";
import type { Project, ProjectChanges, ProjectState } from "../session-state/projects/project.ts";
import type { RecordEvent } from "../session-state/conventions/record-event.ts";
import type { ReplaceResult } from "./compare-and-set.ts";

// The session-state seam (SESSION-STATE.md): one store per record, the record events, and the
// enricher of rules. Every port's general rules: src/ports.ts.

/** Projects of a workspace: the unit every session-state record belongs to. */
export interface ProjectStore {
  /**
   * Inserts a project; `slug_taken` (with the holder's id) when the workspace has a project with
   * that slug, archived ones included. A project inserted with `isDefault` becomes the default
   * only when the workspace has none at that moment (serialized against other default changes);
   * `project` is the record as stored.
   */
  insert(p: { project: Project }): Promise<{ kind: "created"; project: Project } | { kind: "slug_taken"; existingId: string }>;
  /** The project, or null (missing or of another workspace). */
  find(p: { workspaceId: string; projectId: string }): Promise<Project | null>;
  /** The workspace's default project, or null. */
  findDefault(p: { workspaceId: string }): Promise<Project | null>;
  /** Projects of the workspace by id ascending, optionally of one state or only `onlyId`; `after` is a project id. */
  list(p: { workspaceId: string; state: ProjectState | null; onlyId: string | null; after: string | null; limit: number }): Promise<Project[]>;
  /** Active projects of the workspace (the plan cap counts them). */
  countActive(p: { workspaceId: string }): Promise<number>;
  /**
   * Applies `changes` (and version + 1, updatedAt = now) to an active project, guarded by
   * `expectedVersion` when given: `version_conflict` carries the current record, `archived` a
   * project that is archived.
   */
  update(p: { workspaceId: string; projectId: string; expectedVersion: number | null; changes: ProjectChanges; now: Date }): Promise<{ kind: "updated"; project: Project } | { kind: "version_conflict"; current: Project } | { kind: "archived" } | { kind: "not_found" }>;
  /**
   * Moves a project between states in one guarded write: archive needs state active and not the
   * default (`is_default`), unarchive state archived. Version + 1.
   */
  setState(p: { workspaceId: string; projectId: string; to: ProjectState; now: Date }): Promise<{ kind: "changed"; project: Project } | { kind: "wrong_state"; current: Project } | { kind: "is_default" } | { kind: "not_found" }>;
  /**
   * Makes an active project the workspace's default and clears the previous default in the same
   * transaction (at most one default per workspace; in PostgreSQL a partial unique index).
   * Repeating it on the default changes nothing (`changed: false`).
   */
  makeDefault(p: { workspaceId: string; projectId: string; now: Date }): Promise<{ kind: "default"; project: Project; previousId: string | null; changed: boolean } | { kind: "archived" } | { kind: "not_found" }>;
  /**
   * The next number of a per-project sequence (decisions, backlog items), from 1. Serialized per
   * project (a row lock in PostgreSQL, held to the end of the caller's transaction).
   */
  nextNumber(p: { workspaceId: string; projectId: string; sequence: "decision" | "backlog" }): Promise<number>;
}

/**
 * The append-only decision log. Entries and amendments are only ever inserted; PostgreSQL
 * refuses UPDATE and DELETE of them with triggers. A correction supersedes its chain's tip;
 * chains stay linear (one successor per entry: a unique index on supersedes_id).
 */
export interface DecisionLogStore {
  /**
   * Appends an entry. For a correction (`supersedesId` set): `not_tip` with the chain's current
   * tip when `supersedesId` already has a successor (decided by the unique index under
   * concurrency: of two corrections of one tip, one wins).
   */
  append(p: { entry: DecisionEntry }): Promise<{ kind: "appended" } | { kind: "not_tip"; currentId: string }>;
  /** The entry with its successor, or null. */
  find(p: { workspaceId: string; id: string }): Promise<DecisionRow | null>;
  /** Every entry of a chain, oldest first. */
  chain(p: { workspaceId: string; chainRootId: string }): Promise<DecisionRow[]>;
  /** Entries of a project, newest first (id descending), filtered; `after` is an entry id. */
  list(p: { workspaceId: string; projectId: string; filters: DecisionListFilters; after: string | null; limit: number }): Promise<DecisionRow[]>;
  /**
   * Full-text search of a project's entries (title, context, decision, rationale, tags), best
   * first, each with a rank and a snippet whose matched words are wrapped in `**`; `offset`
   * pages through the ranking.
   */
  search(p: { workspaceId: string; projectId: string; q: string; offset: number; limit: number }): Promise<DecisionSearchHit[]>;
  /** Per-author figures of a project's log, by entries descending then id. */
  authors(p: { workspaceId: string; projectId: string }): Promise<DecisionAuthor[]>;
  /** Entries per UTC day of `decidedAt` in [since, until), days without entries left out (`day` is YYYY-MM-DD). */
  countByDay(p: { workspaceId: string; projectId: string; since: Date; until: Date }): Promise<{ day: string; count: number }[]>;
  /** Entries of a project. */
  count(p: { workspaceId: string; projectId: string }): Promise<number>;
  /** Entries recorded in one of the given build sessions, by kind. */
  countForSessions(p: { workspaceId: string; buildSessionIds: readonly string[] }): Promise<{ decisions: number; corrections: number }>;
  /** Appends a source amendment. */
  appendAmendment(p: { amendment: SourceAmendment }): Promise<void>;
  /** An entry's amendments, oldest first. */
  amendments(p: { workspaceId: string; entryId: string }): Promise<SourceAmendment[]>;
}

/** The change history of mutable session-state records (append-only). */
export interface RecordEventStore {
  /** Appends an event. */
  append(p: { event: RecordEvent }): Promise<void>;
  /** The newest `limit` events of one record, newest first. */
  listFor(p: { workspaceId: string; subjectType: string; subjectId: string; limit: number }): Promise<RecordEvent[]>;
  /** Every event that happened in one of the given build sessions, oldest first. */
  listForSessions(p: { workspaceId: string; buildSessionIds: readonly string[] }): Promise<RecordEvent[]>;
  /** A project's events of one subject type and one of `eventTypes` with `since <= at <= until`, oldest first, at most `limit`. */
  listByType(p: { workspaceId: string; projectId: string; subjectType: string; eventTypes: readonly string[]; since: Date; until: Date; limit: number }): Promise<RecordEvent[]>;
}

/**
 * Build sessions. The core decides every state rule on a record it read; `replace` writes the
 * new record only when the stored `version` is still `expectedVersion` (compare-and-set), so a
 * concurrent write is never lost: the loser gets `conflict` and reads again.
 */
export interface BuildSessionStore {
  /** Inserts a session. */
  insert(p: { session: BuildSession }): Promise<void>;
  /** The session, or null. */
  find(p: { workspaceId: string; id: string }): Promise<BuildSession | null>;
  /**
   * Replaces a session whose stored version is `expectedVersion`. At most one session names a
   * given `previousSessionId` (a unique index in PostgreSQL): inserting a second continuation
   * is refused by `insertContinuation`.
   */
  replace(p: { session: BuildSession; expectedVersion: number }): Promise<ReplaceResult>;
  /**
   * In one transaction's terms: ends `predecessor` (replace under `expectedVersion`) and inserts
   * `successor`; `conflict` when the predecessor changed or already has a continuation.
   */
  insertContinuation(p: { predecessor: BuildSession; expectedVersion: number; successor: BuildSession }): Promise<ReplaceResult>;
  /** The project's most recently started session other than `excludeId`, or null. */
  latestInProject(p: { workspaceId: string; projectId: string; excludeId: string | null }): Promise<BuildSession | null>;
  /** The account's most recently started active session in the project, or null. */
  activeFor(p: { workspaceId: string; projectId: string; aiAccountId: string }): Promise<BuildSession | null>;
  /**
   * Sessions of a project, newest first (id descending), filtered; `liveness` compares
   * `lastPingAt` with `now - silenceMs` (active sessions only); `q` is full-text over title,
   * goal, summary, lead lines and current state. `after` is a session id.
   */
  search(p: { workspaceId: string; projectId: string; filters: BuildSessionFilters; now: Date; silenceMs: number; after: string | null; limit: number }): Promise<BuildSession[]>;
  /** Every session of a chain, oldest first. */
  chain(p: { workspaceId: string; chainRootId: string }): Promise<BuildSession[]>;
  /** Active sessions of a project. */
  countActive(p: { workspaceId: string; projectId: string }): Promise<number>;
  /** Sessions of a project last changed (`updatedAt`) in `[since, until]`, oldest first, at most `limit`. */
  touchedBetween(p: { workspaceId: string; projectId: string; since: Date; until: Date; limit: number }): Promise<BuildSession[]>;
}

/**
 * The backlog. The core decides transitions on a record it read; `replace` is a compare-and-set
 * on `version` that also never moves an item out of a terminal status (resolved, dismissed are
 * absorbing: in PostgreSQL a guarded UPDATE, CHECK constraints and a trigger).
 */
export interface BacklogStore {
  /** Inserts an item. */
  insert(p: { item: BacklogItem }): Promise<void>;
  /** The item, or null. */
  find(p: { workspaceId: string; id: string }): Promise<BacklogItem | null>;
  /** Replaces an item whose stored version is `expectedVersion` and whose stored status is not terminal unless unchanged. */
  replace(p: { item: BacklogItem; expectedVersion: number }): Promise<ReplaceResult>;
  /**
   * Items of a project, filtered and ordered (`priority`: priority then oldest; `newest`,
   * `oldest` by id; `updated`: lastActivityAt newest first); `offset` pages.
   */
  search(p: { workspaceId: string; projectId: string; filters: BacklogFilters; sort: BacklogSort; offset: number; limit: number }): Promise<BacklogItem[]>;
  /**
   * Items that are not terminal and inactive past their threshold at `now` (in_progress:
   * `thresholds.inProgressMs`, else `openMs`), most inactive first; snoozed ones (staleness
   * acknowledged until after `now`) only with `includeSnoozed`; optionally of one status or
   * assignee, or inactive for more than `olderThanMs`.
   */
  stale(p: { workspaceId: string; projectId: string; now: Date; thresholds: StalenessThresholds; status: BacklogStatus | null; assignee: string | null; olderThanMs: number | null; includeSnoozed: boolean; offset: number; limit: number }): Promise<BacklogItem[]>;
  /** Items by status, and how many are stale (not snoozed) at `now`. */
  countByStatus(p: { workspaceId: string; projectId: string; now: Date; thresholds: StalenessThresholds }): Promise<Record<BacklogStatus | "stale", number>>;
}

// ---------------------------------------------------------------------------------------------
// Lessons, candidates, rules (SESSION-STATE §6-8)
// ---------------------------------------------------------------------------------------------

/** Lessons and their append-only observations. A deleted lesson keeps its row (`deletedAt`), frees its slug and is left out of every list. */
export interface LessonStore {
  /** Inserts a lesson; `slug_taken` with the holder when a lesson of the project that is not deleted has the slug. */
  insert(p: { lesson: Lesson }): Promise<{ kind: "created" } | { kind: "slug_taken"; existingId: string }>;
  /** The lesson (deleted ones too), or null. */
  find(p: { workspaceId: string; id: string }): Promise<Lesson | null>;
  /** The project's lesson with that slug that is not deleted, or null. */
  findBySlug(p: { workspaceId: string; projectId: string; slug: string }): Promise<Lesson | null>;
  /** Replaces a lesson whose stored version is `expectedVersion` (compare-and-set). */
  replace(p: { lesson: Lesson; expectedVersion: number }): Promise<ReplaceResult>;
  /**
   * Lessons of a project that are not deleted, filtered (`q`: full-text over title, body, why
   * and tags), by `sort` descending (nulls last) then id; `offset` pages, at most `limit + 1`.
   */
  list(p: { workspaceId: string; projectId: string; filters: LessonFilters; sort: LessonSort; offset: number; limit: number }): Promise<Lesson[]>;
  /** Appends an observation. */
  addObservation(p: { observation: LessonObservation }): Promise<void>;
  /** A lesson's newest `limit` observations, newest first. */
  observations(p: { workspaceId: string; lessonId: string; limit: number }): Promise<LessonObservation[]>;
  /** Distinct build sessions among a lesson's stored observations and the sessions `plus` names. */
  distinctSessions(p: { workspaceId: string; lessonId: string; plus: readonly string[] }): Promise<number>;
  /** Lessons of a project that are not deleted, by status. */
  countByStatus(p: { workspaceId: string; projectId: string }): Promise<Record<LessonStatus, number>>;
}

/** Lesson candidates. At most one pending candidate of a project has a given fingerprint. */
export interface LessonCandidateStore {
  /** Inserts a candidate; `fingerprint_taken` with the holder when a pending candidate of the project has its fingerprint. */
  insert(p: { candidate: LessonCandidate }): Promise<{ kind: "created" } | { kind: "fingerprint_taken"; existingId: string }>;
  /** The candidate, or null. */
  find(p: { workspaceId: string; id: string }): Promise<LessonCandidate | null>;
  /** Replaces a candidate whose stored version is `expectedVersion` (compare-and-set). */
  replace(p: { candidate: LessonCandidate; expectedVersion: number }): Promise<ReplaceResult>;
  /** Candidates of a project, filtered, by score descending then id; `offset` pages, at most `limit + 1`. */
  list(p: { workspaceId: string; projectId: string; filters: CandidateFilters; offset: number; limit: number }): Promise<LessonCandidate[]>;
  /** Every candidate of a project in one of `statuses` (at most `limit`), oldest first. */
  all(p: { workspaceId: string; projectId: string; statuses: readonly CandidateStatus[]; limit: number }): Promise<LessonCandidate[]>;
  /** Every evidence key `detector|kind|ref_id` of the project's candidates, whatever their status. */
  evidenceKeys(p: { workspaceId: string; projectId: string }): Promise<string[]>;
  /** Candidates of a project by status and, among pending ones, by detector. */
  counts(p: { workspaceId: string; projectId: string }): Promise<{ byStatus: Record<CandidateStatus, number>; byDetector: Record<Detector, number> }>;
}

/** Rules. Immutable but for enrichment and archiving: every write is a compare-and-set on version. */
export interface RuleStore {
  /** Inserts a rule; `slug_taken` with the holder when an active rule of the project has the slug. */
  insert(p: { rule: Rule }): Promise<{ kind: "created" } | { kind: "slug_taken"; existingId: string }>;
  /** The rule, or null. */
  find(p: { workspaceId: string; id: string }): Promise<Rule | null>;
  /** The project's active rule with that slug, else its newest archived one, or null. */
  findBySlug(p: { workspaceId: string; projectId: string; slug: string }): Promise<Rule | null>;
  /** Replaces a rule whose stored version is `expectedVersion` and whose stored status is active (archived is terminal). */
  replace(p: { rule: Rule; expectedVersion: number }): Promise<ReplaceResult>;
  /** Rules of a project, filtered, by slug then id; `offset` pages, at most `limit + 1`; `limit` null: all. */
  list(p: { workspaceId: string; projectId: string; filters: RuleFilters; offset: number; limit: number | null }): Promise<Rule[]>;
  /** Every active rule of a project, by slug. */
  active(p: { workspaceId: string; projectId: string }): Promise<Rule[]>;
  /** Active rules derived from the lesson. */
  countActiveForLesson(p: { workspaceId: string; lessonId: string }): Promise<number>;
}

/** The input an enricher reads: the rule, its lesson, and the project's other active rules. */
export interface EnrichmentInput {
  rule: Rule;
  lesson: Lesson | null;
  others: readonly Rule[];
}

/**
 * Computes a rule's enrichment (keywords, suggested triggers, related rules, duplicates,
 * conflicts, token estimate). Deterministic for a given input; `name` goes into the result.
 * The heuristic one needs no model; the port leaves room for one.
 */
export interface Enricher {
  readonly name: string;
  enrich(input: EnrichmentInput, now: Date): Enrichment;
}

// ---------------------------------------------------------------------------------------------
// Usage, markdown imports (SESSION-STATE §9-10)
// ---------------------------------------------------------------------------------------------

/** Usage reports (only ever inserted). */
export interface UsageStore {
  /** Inserts a report. */
  insert(p: { report: UsageReport }): Promise<void>;
  /** The newest report of each model of a session. */
  latest(p: { workspaceId: string; buildSessionId: string }): Promise<UsageReport[]>;
  /** The differences of reports with `since <= reportedAt <= until`, summed per (session, model, UTC day), with the session's times; filtered by project, account and session when given. */
  byDay(p: { workspaceId: string; projectId: string | null; aiAccountId: string | null; buildSessionId: string | null; since: Date; until: Date }): Promise<UsageDayRow[]>;
  /** The sum of every report's difference of the given sessions (their usage so far). */
  totalsForSessions(p: { workspaceId: string; buildSessionIds: readonly string[] }): Promise<UsageFigures>;
}

/** Markdown imports, their rows, and the fingerprints of what imports created (unique per project and target). */
export interface ImportStore {
  /** Inserts an import with its rows. */
  insert(p: { record: ImportRecord; rows: readonly ImportRow[] }): Promise<void>;
  /** The import, or null. */
  find(p: { workspaceId: string; id: string }): Promise<ImportRecord | null>;
  /** Replaces an import whose stored version is `expectedVersion` (compare-and-set). */
  replace(p: { record: ImportRecord; expectedVersion: number }): Promise<ReplaceResult>;
  /** Imports of a project, newest first, filtered; `offset` pages, at most `limit + 1`. */
  list(p: { workspaceId: string; projectId: string; status: string | null; parser: string | null; offset: number; limit: number }): Promise<ImportRecord[]>;
  /** An import's rows by row number, optionally of one status; `limit` null: all from `offset`. */
  rows(p: { workspaceId: string; importId: string; status: string | null; offset: number; limit: number | null }): Promise<ImportRow[]>;
  /** Replaces rows of an import (their status, errors and record ids). */
  updateRows(p: { rows: readonly ImportRow[] }): Promise<void>;
  /** Which of `fingerprints` a project's imports of `target` created already, with the record each created. */
  fingerprints(p: { workspaceId: string; projectId: string; target: string; fingerprints: readonly string[] }): Promise<Map<string, string>>;
  /** Keeps a fingerprint; `taken` (with its record) when the project's target has it already. */
  addFingerprint(p: { workspaceId: string; projectId: string; target: string; fingerprint: string; recordId: string; importId: string; at: Date }): Promise<{ kind: "added" } | { kind: "taken"; recordId: string }>;
}
