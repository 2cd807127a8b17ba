// Lessons, lesson candidates and rules (SESSION-STATE §6-8): the shapes the core and its stores
// share. Nested JSON values (evidence, triggers, enrichment) keep their wire names.
import type { CreatedBy, SourceRef } from "../decision-log/decision-entry.ts";

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

/** Rule levels, strongest first. */
export const RULE_LEVELS = ["must", "should", "may"] as const;
/** A rule level. */
export type RuleLevel = (typeof RULE_LEVELS)[number];
/** Operations a change makes to a file. */
export const RULE_OPERATIONS = ["create", "modify", "delete", "rename"] as const;
/** An operation. */
export type RuleOperation = (typeof RULE_OPERATIONS)[number];
/** Rule statuses. */
export const RULE_STATUSES = ["active", "archived"] as const;
/** A rule status. */
export type RuleStatus = (typeof RULE_STATUSES)[number];

/** When a rule applies (SESSION-STATE §8): every populated dimension must match. */
export interface RuleTriggers {
  paths: string[];
  operations: RuleOperation[];
  languages: string[];
  code_patterns: string[];
  project_attributes: Record<string, string[]>;
}

/** Another rule an enrichment relates to. */
export interface RelatedRule {
  rule_id: string;
  slug: string;
  similarity: number;
}

/** What an enricher computed about a rule. */
export interface Enrichment {
  keywords: string[];
  suggested_triggers: RuleTriggers;
  related: RelatedRule[];
  duplicates: RelatedRule[];
  conflicts: (RelatedRule & { reason: string })[];
  token_estimate: number;
  input_sha256: string;
  enricher: string;
  computed_at: string;
}

/** A rule derived from a lesson. Immutable: changing one is deriving again (superseding it). */
export interface Rule {
  workspaceId: string;
  id: string;
  projectId: string;
  /** Unique among a project's active rules. */
  slug: string;
  title: string;
  bodyMd: string;
  level: RuleLevel;
  sourceLessonId: string;
  supersedesRuleId: string | null;
  alwaysApply: boolean;
  triggers: RuleTriggers;
  status: RuleStatus;
  archivedReason: string | null;
  archivedAt: Date | null;
  enrichment: Enrichment | null;
  version: number;
  createdAt: Date;
  updatedAt: Date;
  createdBy: CreatedBy;
}

/** Filters of the rule list the store applies (path filters are matched by the core). */
export interface RuleFilters {
  status: RuleStatus | null;
  level: RuleLevel | null;
  language: string | null;
  sourceLessonId: string | null;
}
