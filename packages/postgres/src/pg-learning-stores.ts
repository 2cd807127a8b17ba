import type { LessonCandidateStore, LessonStore, RuleStore } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import { queryStore } from "./pg-query-store.ts";
import {
  candidatesAll, candidatesCounts, candidatesEvidenceKeys, candidatesFind, candidatesInsert, candidatesList, candidatesReplace, lessonObservationsDistinctSessions, lessonObservationsInsert, lessonObservationsList, lessonsCountByStatus,
  lessonsFind, lessonsFindBySlug, lessonsInsert, lessonsList, lessonsReplace, rulesCountActiveForLesson, rulesFind, rulesFindBySlug, rulesInsert, rulesList, rulesReplace,
} from "./queries/learning.ts";

/** LessonStore on PostgreSQL (compare-and-set writes; slugs unique among lessons not deleted). */
export class PgLessonStore extends queryStore({
  insert: lessonsInsert, find: lessonsFind, findBySlug: lessonsFindBySlug, replace: lessonsReplace, list: lessonsList,
  addObservation: lessonObservationsInsert, observations: lessonObservationsList, distinctSessions: lessonObservationsDistinctSessions,
  countByStatus: lessonsCountByStatus,
}) implements LessonStore {}

/** LessonCandidateStore on PostgreSQL (a fingerprint unique among a project's pending candidates). */
export class PgLessonCandidateStore extends queryStore({
  insert: candidatesInsert, find: candidatesFind, replace: candidatesReplace, list: candidatesList, all: candidatesAll,
  evidenceKeys: candidatesEvidenceKeys, counts: candidatesCounts,
}) implements LessonCandidateStore {}

/** RuleStore on PostgreSQL (slugs unique among active rules; archived rows never change). */
export class PgRuleStore extends queryStore({
  insert: rulesInsert, find: rulesFind, findBySlug: rulesFindBySlug, replace: rulesReplace, list: rulesList,
  countActiveForLesson: rulesCountActiveForLesson,
}) implements RuleStore {
  active(p: { workspaceId: string; projectId: string }) {
    return withPgErrors(() => rulesList(this.sql, { ...p, filters: { status: "active", level: null, language: null, sourceLessonId: null }, offset: 0, limit: null }));
  }
}
