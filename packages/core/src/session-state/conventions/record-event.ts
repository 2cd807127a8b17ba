// What every session-state record carries (SESSION-STATE §1): who created it, and one event per
// change (its history). Types only, so the ports can name them.

/** Who created a record: the calling AI account, from the credential (never from the body). */
export interface CreatedBy {
  aiAccountId: string;
  friendlyName: string;
}

/** One change of a mutable record (SESSION-STATE §1 History). */
export interface RecordEvent {
  workspaceId: string;
  id: string;
  projectId: string;
  /** `project`, `backlog_item`, `build_session`. */
  subjectType: string;
  subjectId: string;
  /** e.g. `created`, `updated`, `archived`, `triaged`. */
  eventType: string;
  actor: CreatedBy;
  oldValue: Record<string, unknown> | null;
  newValue: Record<string, unknown> | null;
  /** The build session the change happened in, when known. */
  buildSessionId: string | null;
  at: Date;
}
