import type { CreatedBy } from "../conventions/record-event.ts";

// Lesson candidates (SESSION-STATE §7): the shapes the core and its stores share. Nested JSON
// values (evidence) keep their wire names.

/** The five deterministic detectors (SESSION-STATE §7). */
export const DETECTORS = ["session_learning", "repeated_note", "decision_correction", "backlog_regression", "backlog_churn"] as const;
/** A detector. */
export type Detector = (typeof DETECTORS)[number];
/** Candidate statuses. */
export const CANDIDATE_STATUSES = ["pending", "promoted", "rejected", "superseded"] as const;
/** A candidate status. */
export type CandidateStatus = (typeof CANDIDATE_STATUSES)[number];

/** One piece of evidence of a candidate; (detector, kind, ref_id) is counted once per project. */
export interface CandidateEvidence {
  /** learning, lead_line, blocker, open_question, decision, backlog, backlog_event, manual. */
  kind: string;
  ref_id: string;
  build_session_id: string | null;
  /** Up to 500 characters. */
  excerpt: string;
  observed_at: string;
}

/** A lesson candidate a detector proposed from the project's own records. */
export interface LessonCandidate {
  workspaceId: string;
  id: string;
  projectId: string;
  /** SHA-256 of the sorted keyword set; unique among a project's pending candidates. */
  fingerprint: string;
  detector: Detector;
  title: string;
  bodyMd: string;
  /** The sorted keyword set (the fingerprint's input, and what similarity compares). */
  keywords: string[];
  evidence: CandidateEvidence[];
  observationCount: number;
  distinctSessionCount: number;
  score: number;
  ready: boolean;
  status: CandidateStatus;
  promotedLessonId: string | null;
  /** What superseded it: another candidate or a lesson. */
  supersededBy: { candidate_id: string | null; lesson_id: string | null } | null;
  reason: string | null;
  suggestedLessonId: string | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  createdBy: CreatedBy;
}

/** Filters of the candidate list. */
export interface CandidateFilters {
  status: CandidateStatus | null;
  detector: Detector | null;
  ready: boolean | null;
  minScore: number | null;
}
