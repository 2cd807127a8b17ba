import type { DecisionAuthor, DecisionEntry, DecisionListFilters, DecisionLogStore, DecisionRow, DecisionSearchHit, Project, ProjectChanges, ProjectState, ProjectStore, RecordEvent, RecordEventStore, SourceAmendment } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import {
  decisionLogAppend, decisionLogAuthors, decisionLogChain, decisionLogCount, decisionLogCountByDay, decisionLogFind, decisionLogList, decisionLogSearch, decisionSourceAmendmentsInsert, decisionSourceAmendmentsList,
} from "./queries/decision-log.ts";
import { projectsCountActive, projectsFind, projectsFindDefault, projectsInsert, projectsList, projectsMakeDefault, projectsNextNumber, projectsSetState, projectsUpdate } from "./queries/projects.ts";
import { sessionStateEventsInsert, sessionStateEventsListFor } from "./queries/session-state-events.ts";
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
}
