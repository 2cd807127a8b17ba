import type { CreatedBy } from "../conventions/record-event.ts";
import type { SourceRef } from "../decision-log/decision-entry.ts";

// Lessons (SESSION-STATE §6): the shapes the core and its stores share.

/** Lesson statuses (SESSION-STATE §6). */
export const LESSON_STATUSES = ["active", "retired", "superseded"] as const;
/** A lesson status. */
export type LessonStatus = (typeof LESSON_STATUSES)[number];
/** What an observation points at. */
export const EVIDENCE_KINDS = ["decision", "backlog", "pr", "commit", "url"] as const;
/** An evidence kind. */
export type EvidenceKind = (typeof EVIDENCE_KINDS)[number];

/** A curated lesson: what agents of the project learned, with how often it was observed. */
export interface Lesson {
  workspaceId: string;
  id: string;
  projectId: string;
  /** Unique per project among lessons not deleted. */
  slug: string;
  title: string;
  bodyMd: string;
  whyMd: string;
  tags: string[];
  status: LessonStatus;
  supersededById: string | null;
  /** Why the status last changed. */
  statusReason: string | null;
  observationCount: number;
  distinctSessionCount: number;
  firstObservedAt: Date | null;
  lastObservedAt: Date | null;
  /** The candidate it was promoted from. */
  sourceCandidateId: string | null;
  /** Where it came from when not from a candidate (an import row). */
  source: SourceRef | null;
  deletedAt: Date | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  createdBy: CreatedBy;
}

/** One observation of a lesson (append-only). */
export interface LessonObservation {
  workspaceId: string;
  id: string;
  projectId: string;
  lessonId: string;
  buildSessionId: string | null;
  note: string;
  evidence: { kind: EvidenceKind; ref: string } | null;
  at: Date;
  by: CreatedBy;
}

/** Lesson orderings. */
export const LESSON_SORTS = ["last_observed_at", "observation_count"] as const;
/** A lesson ordering. */
export type LessonSort = (typeof LESSON_SORTS)[number];

/** Filters of the lesson list. */
export interface LessonFilters {
  status: LessonStatus | null;
  tag: string | null;
  q: string | null;
}
