import type { CreatedBy } from "../conventions/record-event.ts";

// Rules (SESSION-STATE §8): the shapes the core and its stores share. Nested JSON values
// (triggers, enrichment) keep their wire names.

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
