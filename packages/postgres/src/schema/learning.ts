import { sql } from "drizzle-orm";
import { boolean, check, customType, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

// Lessons, lesson candidates and rules (SESSION-STATE §6-8). Each row keeps the whole record in
// `doc` (jsonb) and copies out as columns what the database filters, orders, indexes or keeps
// unique; the stores write both from the record in one statement.

const tsvector = customType<{ data: string }>({ dataType: () => "tsvector" });
const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/** Lessons. A slug is unique per project among lessons not deleted (`lessons_slug_key`). */
export const lessons = pgTable(
  "lessons",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    projectId: text("project_id").notNull(),
    slug: text("slug").notNull(),
    status: text("status").notNull(),
    tags: text("tags").array().notNull(),
    observationCount: integer("observation_count").notNull(),
    lastObservedAt: ts("last_observed_at"),
    deletedAt: ts("deleted_at"),
    version: integer("version").notNull(),
    doc: jsonb("doc").notNull(),
    searchVector: tsvector("search_vector").generatedAlwaysAs(
      sql`setweight(to_tsvector('english', coalesce(doc->>'title', '')), 'A') || setweight(to_tsvector('english', coalesce(doc->>'bodyMd', '') || ' ' || coalesce(doc->>'whyMd', '')), 'B') || setweight(to_tsvector('english', coalesce(doc->>'tags', '')), 'C')`,
    ),
  },
  (t) => [
    primaryKey({ name: "lessons_pkey", columns: [t.workspaceId, t.id] }),
    uniqueIndex("lessons_slug_key").on(t.workspaceId, t.projectId, t.slug).where(sql`deleted_at is null`),
    index("lessons_project_idx").on(t.workspaceId, t.projectId, t.status).where(sql`deleted_at is null`),
    index("lessons_search_idx").using("gin", t.searchVector),
    check("lessons_status_check", sql`status in ('active', 'retired', 'superseded')`),
  ],
);

/** Observations of lessons (only ever inserted). */
export const lessonObservations = pgTable(
  "lesson_observations",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    lessonId: text("lesson_id").notNull(),
    buildSessionId: text("build_session_id"),
    at: ts("at").notNull(),
    doc: jsonb("doc").notNull(),
  },
  (t) => [primaryKey({ name: "lesson_observations_pkey", columns: [t.workspaceId, t.id] }), index("lesson_observations_lesson_idx").on(t.workspaceId, t.lessonId, t.at)],
);

/** Lesson candidates. A fingerprint is unique among a project's pending candidates (`lesson_candidates_fingerprint_key`). */
export const lessonCandidates = pgTable(
  "lesson_candidates",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    projectId: text("project_id").notNull(),
    fingerprint: text("fingerprint").notNull(),
    detector: text("detector").notNull(),
    status: text("status").notNull(),
    score: integer("score").notNull(),
    ready: boolean("ready").notNull(),
    version: integer("version").notNull(),
    doc: jsonb("doc").notNull(),
  },
  (t) => [
    primaryKey({ name: "lesson_candidates_pkey", columns: [t.workspaceId, t.id] }),
    uniqueIndex("lesson_candidates_fingerprint_key").on(t.workspaceId, t.projectId, t.fingerprint).where(sql`status = 'pending'`),
    index("lesson_candidates_project_idx").on(t.workspaceId, t.projectId, t.status, t.score),
    check("lesson_candidates_status_check", sql`status in ('pending', 'promoted', 'rejected', 'superseded')`),
  ],
);

/** Rules. A slug is unique among a project's active rules (`rules_slug_key`); archived is terminal. */
export const rules = pgTable(
  "rules",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    projectId: text("project_id").notNull(),
    slug: text("slug").notNull(),
    status: text("status").notNull(),
    level: text("level").notNull(),
    sourceLessonId: text("source_lesson_id").notNull(),
    languages: text("languages").array().notNull(),
    version: integer("version").notNull(),
    doc: jsonb("doc").notNull(),
  },
  (t) => [
    primaryKey({ name: "rules_pkey", columns: [t.workspaceId, t.id] }),
    uniqueIndex("rules_slug_key").on(t.workspaceId, t.projectId, t.slug).where(sql`status = 'active'`),
    index("rules_project_idx").on(t.workspaceId, t.projectId, t.status, t.slug),
    index("rules_lesson_idx").on(t.workspaceId, t.sourceLessonId).where(sql`status = 'active'`),
    check("rules_status_check", sql`status in ('active', 'archived')`),
    check("rules_level_check", sql`level in ('must', 'should', 'may')`),
  ],
);
