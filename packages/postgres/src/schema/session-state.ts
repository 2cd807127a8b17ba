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
  ],
);
