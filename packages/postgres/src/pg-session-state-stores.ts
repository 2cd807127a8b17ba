import type { BacklogStore, BuildSessionStore, DecisionLogStore, ProjectStore, RecordEventStore } from "@agentq/core";
import { queryStore } from "./pg-query-store.ts";
import {
  decisionLogAppend, decisionLogAuthors, decisionLogChain, decisionLogCount, decisionLogCountByDay, decisionLogCountForSessions, decisionLogFind, decisionLogList, decisionLogSearch, decisionSourceAmendmentsInsert, decisionSourceAmendmentsList,
} from "./queries/decision-log.ts";
import { projectsCountActive, projectsFind, projectsFindDefault, projectsInsert, projectsList, projectsMakeDefault, projectsNextNumber, projectsSetState, projectsUpdate } from "./queries/projects.ts";
import { sessionStateEventsInsert, sessionStateEventsListByType, sessionStateEventsListFor, sessionStateEventsListForSessions } from "./queries/session-state-events.ts";
import { backlogItemsCountByStatus, backlogItemsFind, backlogItemsInsert, backlogItemsReplace, backlogItemsSearch, backlogItemsStale } from "./queries/backlog-items.ts";
import { buildSessionsActiveFor, buildSessionsChain, buildSessionsCountActive, buildSessionsFind, buildSessionsInsert, buildSessionsInsertContinuation, buildSessionsLatestInProject, buildSessionsReplace, buildSessionsSearch, buildSessionsTouchedBetween } from "./queries/build-sessions.ts";

/** ProjectStore on PostgreSQL, bound to a pool or to one transaction. */
export class PgProjectStore extends queryStore({
  insert: projectsInsert, find: projectsFind, findDefault: projectsFindDefault, list: projectsList, countActive: projectsCountActive,
  update: projectsUpdate, setState: projectsSetState, makeDefault: projectsMakeDefault, nextNumber: projectsNextNumber,
}) implements ProjectStore {}

/** DecisionLogStore on PostgreSQL (the tables refuse UPDATE and DELETE themselves). */
export class PgDecisionLogStore extends queryStore({
  append: decisionLogAppend, find: decisionLogFind, chain: decisionLogChain, list: decisionLogList, search: decisionLogSearch,
  authors: decisionLogAuthors, countByDay: decisionLogCountByDay, count: decisionLogCount, countForSessions: decisionLogCountForSessions,
  appendAmendment: decisionSourceAmendmentsInsert, amendments: decisionSourceAmendmentsList,
}) implements DecisionLogStore {}

/** RecordEventStore on PostgreSQL. */
export class PgRecordEventStore extends queryStore({
  append: sessionStateEventsInsert, listFor: sessionStateEventsListFor, listForSessions: sessionStateEventsListForSessions,
  listByType: sessionStateEventsListByType,
}) implements RecordEventStore {}

/** BuildSessionStore on PostgreSQL (compare-and-set writes on version). */
export class PgBuildSessionStore extends queryStore({
  insert: buildSessionsInsert, find: buildSessionsFind, replace: buildSessionsReplace, insertContinuation: buildSessionsInsertContinuation,
  latestInProject: buildSessionsLatestInProject, activeFor: buildSessionsActiveFor, search: buildSessionsSearch, chain: buildSessionsChain,
  countActive: buildSessionsCountActive, touchedBetween: buildSessionsTouchedBetween,
}) implements BuildSessionStore {}

/** BacklogStore on PostgreSQL (compare-and-set writes; terminal statuses absorbing in the table). */
export class PgBacklogStore extends queryStore({
  insert: backlogItemsInsert, find: backlogItemsFind, replace: backlogItemsReplace, search: backlogItemsSearch, stale: backlogItemsStale,
  countByStatus: backlogItemsCountByStatus,
}) implements BacklogStore {}
