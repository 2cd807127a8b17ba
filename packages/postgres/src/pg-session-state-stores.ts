import type { BacklogFilters, BacklogItem, BacklogSort, BacklogStatus, BacklogStore, BuildSession, BuildSessionFilters, BuildSessionStore, ReplaceResult, StalenessThresholds, DecisionAuthor, DecisionEntry, DecisionListFilters, DecisionLogStore, DecisionRow, DecisionSearchHit, Project, ProjectChanges, ProjectState, ProjectStore, RecordEvent, RecordEventStore, SourceAmendment } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import {
  decisionLogAppend, decisionLogAuthors, decisionLogChain, decisionLogCount, decisionLogCountByDay, decisionLogCountForSessions, decisionLogFind, decisionLogList, decisionLogSearch, decisionSourceAmendmentsInsert, decisionSourceAmendmentsList,
} from "./queries/decision-log.ts";
import { projectsCountActive, projectsFind, projectsFindDefault, projectsInsert, projectsList, projectsMakeDefault, projectsNextNumber, projectsSetState, projectsUpdate } from "./queries/projects.ts";
import { sessionStateEventsInsert, sessionStateEventsListByType, sessionStateEventsListFor, sessionStateEventsListForSessions } from "./queries/session-state-events.ts";
import { backlogItemsCountByStatus, backlogItemsFind, backlogItemsInsert, backlogItemsReplace, backlogItemsSearch, backlogItemsStale } from "./queries/backlog-items.ts";
import { buildSessionsActiveFor, buildSessionsChain, buildSessionsCountActive, buildSessionsFind, buildSessionsInsert, buildSessionsInsertContinuation, buildSessionsLatestInProject, buildSessionsReplace, buildSessionsSearch, buildSessionsTouchedBetween } from "./queries/build-sessions.ts";
import type { SqlClient } from "./sql-client.ts";

/** ProjectStore on PostgreSQL, bound to a pool or to one transaction. */
export class PgProjectStore implements ProjectStore {
  constructor(private readonly sql: SqlClient) {}
  insert(p: { project: Project }) {
    return withPgErrors(() => projectsInsert(this.sql, p));
  }
  find(p: { workspaceId: string; projectId: string }) {
    return withPgErrors(() => projectsFind(this.sql, p));
  }
  findDefault(p: { workspaceId: string }) {
    return withPgErrors(() => projectsFindDefault(this.sql, p));
  }
  list(p: { workspaceId: string; state: ProjectState | null; onlyId: string | null; after: string | null; limit: number }) {
    return withPgErrors(() => projectsList(this.sql, p));
  }
  countActive(p: { workspaceId: string }) {
    return withPgErrors(() => projectsCountActive(this.sql, p));
  }
  update(p: { workspaceId: string; projectId: string; expectedVersion: number | null; changes: ProjectChanges; now: Date }) {
    return withPgErrors(() => projectsUpdate(this.sql, p));
  }
  setState(p: { workspaceId: string; projectId: string; to: ProjectState; now: Date }) {
    return withPgErrors(() => projectsSetState(this.sql, p));
  }
  makeDefault(p: { workspaceId: string; projectId: string; now: Date }) {
    return withPgErrors(() => projectsMakeDefault(this.sql, p));
  }
  nextNumber(p: { workspaceId: string; projectId: string; sequence: "decision" | "backlog" }) {
    return withPgErrors(() => projectsNextNumber(this.sql, p));
  }
}

/** DecisionLogStore on PostgreSQL (the tables refuse UPDATE and DELETE themselves). */
export class PgDecisionLogStore implements DecisionLogStore {
  constructor(private readonly sql: SqlClient) {}
  append(p: { entry: DecisionEntry }): Promise<{ kind: "appended" } | { kind: "not_tip"; currentId: string }> {
    return withPgErrors(() => decisionLogAppend(this.sql, p));
  }
  find(p: { workspaceId: string; id: string }): Promise<DecisionRow | null> {
    return withPgErrors(() => decisionLogFind(this.sql, p));
  }
  chain(p: { workspaceId: string; chainRootId: string }): Promise<DecisionRow[]> {
    return withPgErrors(() => decisionLogChain(this.sql, p));
  }
  list(p: { workspaceId: string; projectId: string; filters: DecisionListFilters; after: string | null; limit: number }): Promise<DecisionRow[]> {
    return withPgErrors(() => decisionLogList(this.sql, p));
  }
  search(p: { workspaceId: string; projectId: string; q: string; offset: number; limit: number }): Promise<DecisionSearchHit[]> {
    return withPgErrors(() => decisionLogSearch(this.sql, p));
  }
  authors(p: { workspaceId: string; projectId: string }): Promise<DecisionAuthor[]> {
    return withPgErrors(() => decisionLogAuthors(this.sql, p));
  }
  countByDay(p: { workspaceId: string; projectId: string; since: Date; until: Date }): Promise<{ day: string; count: number }[]> {
    return withPgErrors(() => decisionLogCountByDay(this.sql, p));
  }
  count(p: { workspaceId: string; projectId: string }): Promise<number> {
    return withPgErrors(() => decisionLogCount(this.sql, p));
  }
  countForSessions(p: { workspaceId: string; buildSessionIds: readonly string[] }): Promise<{ decisions: number; corrections: number }> {
    return withPgErrors(() => decisionLogCountForSessions(this.sql, p));
  }
  appendAmendment(p: { amendment: SourceAmendment }): Promise<void> {
    return withPgErrors(() => decisionSourceAmendmentsInsert(this.sql, p));
  }
  amendments(p: { workspaceId: string; entryId: string }): Promise<SourceAmendment[]> {
    return withPgErrors(() => decisionSourceAmendmentsList(this.sql, p));
  }
}

/** RecordEventStore on PostgreSQL. */
export class PgRecordEventStore implements RecordEventStore {
  constructor(private readonly sql: SqlClient) {}
  append(p: { event: RecordEvent }): Promise<void> {
    return withPgErrors(() => sessionStateEventsInsert(this.sql, p));
  }
  listFor(p: { workspaceId: string; subjectType: string; subjectId: string; limit: number }): Promise<RecordEvent[]> {
    return withPgErrors(() => sessionStateEventsListFor(this.sql, p));
  }
  listForSessions(p: { workspaceId: string; buildSessionIds: readonly string[] }): Promise<RecordEvent[]> {
    return withPgErrors(() => sessionStateEventsListForSessions(this.sql, p));
  }
  listByType(p: { workspaceId: string; projectId: string; subjectType: string; eventTypes: readonly string[]; since: Date; until: Date; limit: number }): Promise<RecordEvent[]> {
    return withPgErrors(() => sessionStateEventsListByType(this.sql, p));
  }
}

/** BuildSessionStore on PostgreSQL (compare-and-set writes on version). */
export class PgBuildSessionStore implements BuildSessionStore {
  constructor(private readonly sql: SqlClient) {}
  insert(p: { session: BuildSession }): Promise<void> {
    return withPgErrors(() => buildSessionsInsert(this.sql, p));
  }
  find(p: { workspaceId: string; id: string }): Promise<BuildSession | null> {
    return withPgErrors(() => buildSessionsFind(this.sql, p));
  }
  replace(p: { session: BuildSession; expectedVersion: number }): Promise<ReplaceResult> {
    return withPgErrors(() => buildSessionsReplace(this.sql, p));
  }
  insertContinuation(p: { predecessor: BuildSession; expectedVersion: number; successor: BuildSession }): Promise<ReplaceResult> {
    return withPgErrors(() => buildSessionsInsertContinuation(this.sql, p));
  }
  latestInProject(p: { workspaceId: string; projectId: string; excludeId: string | null }): Promise<BuildSession | null> {
    return withPgErrors(() => buildSessionsLatestInProject(this.sql, p));
  }
  activeFor(p: { workspaceId: string; projectId: string; aiAccountId: string }): Promise<BuildSession | null> {
    return withPgErrors(() => buildSessionsActiveFor(this.sql, p));
  }
  search(p: { workspaceId: string; projectId: string; filters: BuildSessionFilters; now: Date; silenceMs: number; after: string | null; limit: number }): Promise<BuildSession[]> {
    return withPgErrors(() => buildSessionsSearch(this.sql, p));
  }
  chain(p: { workspaceId: string; chainRootId: string }): Promise<BuildSession[]> {
    return withPgErrors(() => buildSessionsChain(this.sql, p));
  }
  countActive(p: { workspaceId: string; projectId: string }): Promise<number> {
    return withPgErrors(() => buildSessionsCountActive(this.sql, p));
  }
  touchedBetween(p: { workspaceId: string; projectId: string; since: Date; until: Date; limit: number }): Promise<BuildSession[]> {
    return withPgErrors(() => buildSessionsTouchedBetween(this.sql, p));
  }
}

/** BacklogStore on PostgreSQL (compare-and-set writes; terminal statuses absorbing in the table). */
export class PgBacklogStore implements BacklogStore {
  constructor(private readonly sql: SqlClient) {}
  insert(p: { item: BacklogItem }): Promise<void> {
    return withPgErrors(() => backlogItemsInsert(this.sql, p));
  }
  find(p: { workspaceId: string; id: string }): Promise<BacklogItem | null> {
    return withPgErrors(() => backlogItemsFind(this.sql, p));
  }
  replace(p: { item: BacklogItem; expectedVersion: number }): Promise<ReplaceResult> {
    return withPgErrors(() => backlogItemsReplace(this.sql, p));
  }
  search(p: { workspaceId: string; projectId: string; filters: BacklogFilters; sort: BacklogSort; offset: number; limit: number }): Promise<BacklogItem[]> {
    return withPgErrors(() => backlogItemsSearch(this.sql, p));
  }
  stale(p: { workspaceId: string; projectId: string; now: Date; thresholds: StalenessThresholds; status: BacklogStatus | null; assignee: string | null; olderThanMs: number | null; includeSnoozed: boolean; offset: number; limit: number }): Promise<BacklogItem[]> {
    return withPgErrors(() => backlogItemsStale(this.sql, p));
  }
  countByStatus(p: { workspaceId: string; projectId: string; now: Date; thresholds: StalenessThresholds }): Promise<Record<BacklogStatus | "stale", number>> {
    return withPgErrors(() => backlogItemsCountByStatus(this.sql, p));
  }
}
