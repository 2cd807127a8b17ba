import type { CandidateFilters, CandidateStatus, Lesson, LessonCandidate, LessonCandidateStore, LessonFilters, LessonObservation, LessonSort, LessonStore, Rule, RuleFilters, RuleStore } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import {
  candidatesAll, candidatesCounts, candidatesEvidenceKeys, candidatesFind, candidatesInsert, candidatesList, candidatesReplace, lessonObservationsDistinctSessions, lessonObservationsInsert, lessonObservationsList, lessonsCountByStatus,
  lessonsFind, lessonsFindBySlug, lessonsInsert, lessonsList, lessonsReplace, rulesCountActiveForLesson, rulesFind, rulesFindBySlug, rulesInsert, rulesList, rulesReplace,
} from "./queries/learning.ts";
import type { SqlClient } from "./sql-client.ts";

/** LessonStore on PostgreSQL (compare-and-set writes; slugs unique among lessons not deleted). */
export class PgLessonStore implements LessonStore {
  constructor(private readonly sql: SqlClient) {}
  insert(p: { lesson: Lesson }) {
    return withPgErrors(() => lessonsInsert(this.sql, p));
  }
  find(p: { workspaceId: string; id: string }) {
    return withPgErrors(() => lessonsFind(this.sql, p));
  }
  findBySlug(p: { workspaceId: string; projectId: string; slug: string }) {
    return withPgErrors(() => lessonsFindBySlug(this.sql, p));
  }
  replace(p: { lesson: Lesson; expectedVersion: number }) {
    return withPgErrors(() => lessonsReplace(this.sql, p));
  }
  list(p: { workspaceId: string; projectId: string; filters: LessonFilters; sort: LessonSort; offset: number; limit: number }) {
    return withPgErrors(() => lessonsList(this.sql, p));
  }
  addObservation(p: { observation: LessonObservation }) {
    return withPgErrors(() => lessonObservationsInsert(this.sql, p));
  }
  observations(p: { workspaceId: string; lessonId: string; limit: number }) {
    return withPgErrors(() => lessonObservationsList(this.sql, p));
  }
  distinctSessions(p: { workspaceId: string; lessonId: string; plus: readonly string[] }) {
    return withPgErrors(() => lessonObservationsDistinctSessions(this.sql, p));
  }
  countByStatus(p: { workspaceId: string; projectId: string }) {
    return withPgErrors(() => lessonsCountByStatus(this.sql, p));
  }
}

/** LessonCandidateStore on PostgreSQL (a fingerprint unique among a project's pending candidates). */
export class PgLessonCandidateStore implements LessonCandidateStore {
  constructor(private readonly sql: SqlClient) {}
  insert(p: { candidate: LessonCandidate }) {
    return withPgErrors(() => candidatesInsert(this.sql, p));
  }
  find(p: { workspaceId: string; id: string }) {
    return withPgErrors(() => candidatesFind(this.sql, p));
  }
  replace(p: { candidate: LessonCandidate; expectedVersion: number }) {
    return withPgErrors(() => candidatesReplace(this.sql, p));
  }
  list(p: { workspaceId: string; projectId: string; filters: CandidateFilters; offset: number; limit: number }) {
    return withPgErrors(() => candidatesList(this.sql, p));
  }
  all(p: { workspaceId: string; projectId: string; statuses: readonly CandidateStatus[]; limit: number }) {
    return withPgErrors(() => candidatesAll(this.sql, p));
  }
  evidenceKeys(p: { workspaceId: string; projectId: string }) {
    return withPgErrors(() => candidatesEvidenceKeys(this.sql, p));
  }
  counts(p: { workspaceId: string; projectId: string }) {
    return withPgErrors(() => candidatesCounts(this.sql, p));
  }
}

/** RuleStore on PostgreSQL (slugs unique among active rules; archived rows never change). */
export class PgRuleStore implements RuleStore {
  constructor(private readonly sql: SqlClient) {}
  insert(p: { rule: Rule }) {
    return withPgErrors(() => rulesInsert(this.sql, p));
  }
  find(p: { workspaceId: string; id: string }) {
    return withPgErrors(() => rulesFind(this.sql, p));
  }
  findBySlug(p: { workspaceId: string; projectId: string; slug: string }) {
    return withPgErrors(() => rulesFindBySlug(this.sql, p));
  }
  replace(p: { rule: Rule; expectedVersion: number }) {
    return withPgErrors(() => rulesReplace(this.sql, p));
  }
  list(p: { workspaceId: string; projectId: string; filters: RuleFilters; offset: number; limit: number | null }) {
    return withPgErrors(() => rulesList(this.sql, p));
  }
  active(p: { workspaceId: string; projectId: string }) {
    return withPgErrors(() => rulesList(this.sql, { ...p, filters: { status: "active", level: null, language: null, sourceLessonId: null }, offset: 0, limit: null }));
  }
  countActiveForLesson(p: { workspaceId: string; lessonId: string }) {
    return withPgErrors(() => rulesCountActiveForLesson(this.sql, p));
  }
}
