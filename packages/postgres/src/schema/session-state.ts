import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

// Session-state records (SESSION-STATE.md). Hand-written in the migration next to these tables
// (drizzle-kit cannot express them): the append-only triggers of the decision log and its
// amendments, and the generated full-text column `search_vector` with its GIN index.

/**
 * Projects. `decision_seq` and `backlog_seq` hand out per-project numbers (an UPDATE of the
 * project row, so numbering serializes per project). At most one default per workspace
 * (`projects_default_key`), and never an archived one (CHECK).
 */
export const projects = pgTable(
  "projects",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    name: text("name").notNull(),
    slug: text("slug").notNull(),
    description: text("description").notNull(),
    repositoryUrl: text("repository_url"),
    attributes: jsonb("attributes").notNull(),
    settings: jsonb("settings").notNull(),
    state: text("state").notNull(),
    isDefault: boolean("is_default").notNull(),
    archivedAt: timestamp("archived_at", { withTimezone: true, precision: 3 }),
    version: integer("version").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull(),
    createdByAccountId: text("created_by_account_id").notNull(),
    createdByName: text("created_by_name").notNull(),
    decisionSeq: integer("decision_seq").notNull().default(0),
    backlogSeq: integer("backlog_seq").notNull().default(0),
  },
  (t) => [
    primaryKey({ name: "projects_pkey", columns: [t.workspaceId, t.id] }),
    uniqueIndex("projects_slug_key").on(t.workspaceId, t.slug),
    uniqueIndex("projects_default_key").on(t.workspaceId).where(sql`is_default`),
    check("projects_state_check", sql`state in ('active', 'archived')`),
    check("projects_default_active_check", sql`not is_default or state = 'active'`),
    check("projects_archived_at_check", sql`(state = 'archived') = (archived_at is not null)`),
  ],
);

/**
 * The decision log: append-only (triggers refuse UPDATE, DELETE and TRUNCATE; only an erasure
 * under the session setting `agentq.erasure = on` may delete). A correction names the entry it
 * supersedes; `decision_log_supersedes_key` keeps every chain linear (one successor per entry).
 */
export const decisionLogEntries = pgTable(
  "decision_log_entries",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    projectId: text("project_id").notNull(),
    number: integer("number").notNull(),
    kind: text("kind").notNull(),
    title: text("title").notNull(),
    contextMd: text("context_md").notNull(),
    decisionMd: text("decision_md").notNull(),
    rationaleMd: text("rationale_md").notNull(),
    alternatives: jsonb("alternatives").notNull(),
    consequences: jsonb("consequences").notNull(),
    tags: text("tags").array().notNull(),
    files: text("files").array().notNull(),
    buildSessionId: text("build_session_id"),
    authorAccountId: text("author_account_id").notNull(),
    authorName: text("author_name").notNull(),
    decidedAt: timestamp("decided_at", { withTimezone: true, precision: 3 }).notNull(),
    recordedAt: timestamp("recorded_at", { withTimezone: true, precision: 3 }).notNull(),
    supersedesId: text("supersedes_id"),
    chainRootId: text("chain_root_id").notNull(),
    source: jsonb("source").notNull(),
  },
  (t) => [
    primaryKey({ name: "decision_log_entries_pkey", columns: [t.workspaceId, t.id] }),
    uniqueIndex("decision_log_number_key").on(t.workspaceId, t.projectId, t.number),
    uniqueIndex("decision_log_supersedes_key").on(t.workspaceId, t.supersedesId),
    index("decision_log_project_idx").on(t.workspaceId, t.projectId, t.id),
    index("decision_log_chain_idx").on(t.workspaceId, t.chainRootId),
    check("decision_log_kind_check", sql`kind in ('decision', 'correction')`),
    check("decision_log_correction_check", sql`(kind = 'correction') = (supersedes_id is not null)`),
    check("decision_log_root_check", sql`supersedes_id is not null or chain_root_id = id`),
  ],
);

/** Amendments of a decision's source (append-only like the log). */
export const decisionSourceAmendments = pgTable(
  "decision_source_amendments",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    entryId: text("entry_id").notNull(),
    source: jsonb("source").notNull(),
    reason: text("reason").notNull(),
    at: timestamp("at", { withTimezone: true, precision: 3 }).notNull(),
    byAccountId: text("by_account_id").notNull(),
    byName: text("by_name").notNull(),
  },
  (t) => [primaryKey({ name: "decision_source_amendments_pkey", columns: [t.workspaceId, t.id] }), index("decision_source_amendments_entry_idx").on(t.workspaceId, t.entryId)],
);

/** The change history of mutable session-state records: one row per change. */
export const sessionStateEvents = pgTable(
  "session_state_events",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    projectId: text("project_id").notNull(),
    subjectType: text("subject_type").notNull(),
    subjectId: text("subject_id").notNull(),
    eventType: text("event_type").notNull(),
    actorAccountId: text("actor_account_id").notNull(),
    actorName: text("actor_name").notNull(),
    oldValue: jsonb("old_value"),
    newValue: jsonb("new_value"),
    buildSessionId: text("build_session_id"),
    at: timestamp("at", { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [
    primaryKey({ name: "session_state_events_pkey", columns: [t.workspaceId, t.id] }),
    index("session_state_events_subject_idx").on(t.workspaceId, t.subjectType, t.subjectId, t.id),
    index("session_state_events_session_idx").on(t.workspaceId, t.buildSessionId).where(sql`build_session_id is not null`),
    index("session_state_events_type_idx").on(t.workspaceId, t.projectId, t.subjectType, t.eventType, t.at),
  ],
);

/**
 * Build sessions. Every write is a compare-and-set on `version` (the core decides the state
 * rules). At most one continuation per session (`build_sessions_previous_key`). Lists and
 * objects (lead lines, current state, PRs, learnings, client) are JSON.
 */
export const buildSessions = pgTable(
  "build_sessions",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    projectId: text("project_id").notNull(),
    aiAccountId: text("ai_account_id").notNull(),
    aiAccountName: text("ai_account_name").notNull(),
    title: text("title").notNull(),
    goal: text("goal").notNull(),
    client: jsonb("client"),
    state: text("state").notNull(),
    endReason: text("end_reason"),
    startedAt: timestamp("started_at", { withTimezone: true, precision: 3 }).notNull(),
    lastPingAt: timestamp("last_ping_at", { withTimezone: true, precision: 3 }).notNull(),
    endedAt: timestamp("ended_at", { withTimezone: true, precision: 3 }),
    pingCount: integer("ping_count").notNull(),
    activeSeconds: integer("active_seconds").notNull(),
    previousSessionId: text("previous_session_id"),
    nextSessionId: text("next_session_id"),
    chainRootId: text("chain_root_id").notNull(),
    leadLines: jsonb("lead_lines").notNull(),
    summaryMd: text("summary_md").notNull(),
    learnings: jsonb("learnings").notNull(),
    currentState: jsonb("current_state").notNull(),
    currentStateVersion: integer("current_state_version").notNull(),
    prs: jsonb("prs").notNull(),
    version: integer("version").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [
    primaryKey({ name: "build_sessions_pkey", columns: [t.workspaceId, t.id] }),
    uniqueIndex("build_sessions_previous_key").on(t.workspaceId, t.previousSessionId),
    index("build_sessions_project_idx").on(t.workspaceId, t.projectId, t.id),
    index("build_sessions_active_idx").on(t.workspaceId, t.projectId, t.aiAccountId, t.id).where(sql`state = 'active'`),
    index("build_sessions_chain_idx").on(t.workspaceId, t.chainRootId),
    index("build_sessions_updated_idx").on(t.workspaceId, t.projectId, t.updatedAt),
    check("build_sessions_state_check", sql`state in ('active', 'ended')`),
    check("build_sessions_end_check", sql`(state = 'ended') = (ended_at is not null) and (state = 'ended') = (end_reason is not null)`),
    check("build_sessions_end_reason_check", sql`end_reason is null or end_reason in ('completed', 'abandoned', 'continued')`),
  ],
);

/**
 * Backlog items. Every write is a compare-and-set on `version` that never moves an item out of
 * resolved or dismissed (absorbing: the guarded UPDATE, a trigger, and CHECK constraints that a
 * resolved item has a PR, a commit or notes and a dismissed one a reason).
 */
export const backlogItems = pgTable(
  "backlog_items",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    projectId: text("project_id").notNull(),
    number: integer("number").notNull(),
    title: text("title").notNull(),
    descriptionMd: text("description_md").notNull(),
    acceptanceCriteriaMd: text("acceptance_criteria_md").notNull(),
    kind: text("kind").notNull(),
    labels: text("labels").array().notNull(),
    priority: integer("priority").notNull(),
    status: text("status").notNull(),
    assigneeAiAccountId: text("assignee_ai_account_id"),
    discoveredFromId: text("discovered_from_id"),
    duplicateOfId: text("duplicate_of_id"),
    sourceBuildSessionId: text("source_build_session_id"),
    sourceDecisionId: text("source_decision_id"),
    sourceImportRow: text("source_import_row"),
    closingPrUrl: text("closing_pr_url"),
    closingCommitSha: text("closing_commit_sha"),
    closingNotes: jsonb("closing_notes").notNull(),
    closingReason: text("closing_reason"),
    resolvedAt: timestamp("resolved_at", { withTimezone: true, precision: 3 }),
    dismissedAt: timestamp("dismissed_at", { withTimezone: true, precision: 3 }),
    lastActivityAt: timestamp("last_activity_at", { withTimezone: true, precision: 3 }).notNull(),
    stalenessAck: jsonb("staleness_ack"),
    snoozedUntil: timestamp("snoozed_until", { withTimezone: true, precision: 3 }),
    version: integer("version").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull(),
    createdByAccountId: text("created_by_account_id").notNull(),
    createdByName: text("created_by_name").notNull(),
  },
  (t) => [
    primaryKey({ name: "backlog_items_pkey", columns: [t.workspaceId, t.id] }),
    uniqueIndex("backlog_items_number_key").on(t.workspaceId, t.projectId, t.number),
    index("backlog_items_ready_idx").on(t.workspaceId, t.projectId, t.priority, t.id).where(sql`status = 'open' and assignee_ai_account_id is null`),
    index("backlog_items_activity_idx").on(t.workspaceId, t.projectId, t.lastActivityAt).where(sql`status in ('untriaged', 'open', 'in_progress')`),
    check("backlog_items_status_check", sql`status in ('untriaged', 'open', 'in_progress', 'resolved', 'dismissed')`),
    check("backlog_items_kind_check", sql`kind in ('bug', 'feature', 'task', 'chore', 'spike')`),
    check("backlog_items_priority_check", sql`priority between 0 and 4`),
    check("backlog_items_resolved_check", sql`status <> 'resolved' or (resolved_at is not null and (closing_pr_url is not null or closing_commit_sha is not null or jsonb_array_length(closing_notes) > 0))`),
    check("backlog_items_dismissed_check", sql`status <> 'dismissed' or (dismissed_at is not null and closing_reason is not null and closing_reason <> '')`),
    check("backlog_items_in_progress_check", sql`status <> 'in_progress' or assignee_ai_account_id is not null`),
  ],
);
