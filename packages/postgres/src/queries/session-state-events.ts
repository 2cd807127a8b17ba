import type { RecordEvent } from "@agentq/core";
import type { SqlClient } from "../sql-client.ts";
import { json } from "./json.ts";

/** Appends one change event of a session-state record. */
export async function sessionStateEventsInsert(sql: SqlClient, p: { event: RecordEvent }): Promise<void> {
  const e = p.event;
  await sql`
    insert into session_state_events (workspace_id, id, project_id, subject_type, subject_id, event_type, actor_account_id, actor_name, old_value, new_value, build_session_id, at)
    values (${e.workspaceId}, ${e.id}, ${e.projectId}, ${e.subjectType}, ${e.subjectId}, ${e.eventType}, ${e.actor.aiAccountId}, ${e.actor.friendlyName},
      ${e.oldValue === null ? null : json(sql, e.oldValue)}::jsonb, ${e.newValue === null ? null : json(sql, e.newValue)}::jsonb, ${e.buildSessionId}, ${e.at})`;
}

type EventRow = { workspace_id: string; id: string; project_id: string; subject_type: string; subject_id: string; event_type: string; actor_account_id: string; actor_name: string; old_value: Record<string, unknown> | null; new_value: Record<string, unknown> | null; build_session_id: string | null; at: Date };

/** Every event written in one of the given build sessions, oldest first (`session_state_events_session_idx`). */
export async function sessionStateEventsListForSessions(sql: SqlClient, p: { workspaceId: string; buildSessionIds: readonly string[] }): Promise<RecordEvent[]> {
  const rows = await sql<EventRow[]>`
    select workspace_id, id, project_id, subject_type, subject_id, event_type, actor_account_id, actor_name, old_value, new_value, build_session_id, at
    from session_state_events
    where workspace_id = ${p.workspaceId} and build_session_id = any(${[...p.buildSessionIds]}::text[])
    order by id`;
  return rows.map(toEvent);
}

function toEvent(r: EventRow): RecordEvent {
  return {
    workspaceId: r.workspace_id,
    id: r.id,
    projectId: r.project_id,
    subjectType: r.subject_type,
    subjectId: r.subject_id,
    eventType: r.event_type,
    actor: { aiAccountId: r.actor_account_id, friendlyName: r.actor_name },
    oldValue: r.old_value,
    newValue: r.new_value,
    buildSessionId: r.build_session_id,
    at: r.at,
  };
}

/** The newest `limit` events of one record, newest first. */
export async function sessionStateEventsListFor(sql: SqlClient, p: { workspaceId: string; subjectType: string; subjectId: string; limit: number }): Promise<RecordEvent[]> {
  const rows = await sql<EventRow[]>`
    select workspace_id, id, project_id, subject_type, subject_id, event_type, actor_account_id, actor_name, old_value, new_value, build_session_id, at
    from session_state_events
    where workspace_id = ${p.workspaceId} and subject_type = ${p.subjectType} and subject_id = ${p.subjectId}
    order by id desc limit ${p.limit}`;
  return rows.map(toEvent);
}

/** A project's events of one subject type and event types in [since, until], oldest first (`session_state_events_type_idx`). */
export async function sessionStateEventsListByType(sql: SqlClient, p: { workspaceId: string; projectId: string; subjectType: string; eventTypes: readonly string[]; since: Date; until: Date; limit: number }): Promise<RecordEvent[]> {
  const rows = await sql<EventRow[]>`
    select workspace_id, id, project_id, subject_type, subject_id, event_type, actor_account_id, actor_name, old_value, new_value, build_session_id, at
    from session_state_events
    where workspace_id = ${p.workspaceId} and project_id = ${p.projectId} and subject_type = ${p.subjectType} and event_type = any(${[...p.eventTypes]}::text[])
      and at >= ${p.since} and at <= ${p.until}
    order by id limit ${p.limit}`;
  return rows.map(toEvent);
}
