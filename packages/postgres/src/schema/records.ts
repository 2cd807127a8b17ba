import { sql } from "drizzle-orm";
import { bigint, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp } from "drizzle-orm/pg-core";

// Usage reports and markdown imports (SESSION-STATE §9-10).

const ts = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });
const count = (name: string) => bigint(name, { mode: "number" }).notNull();

/** Usage reports: cumulative figures per (session, model) and their difference from the report before (only ever inserted). */
export const usageReports = pgTable(
  "usage_reports",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    projectId: text("project_id").notNull(),
    buildSessionId: text("build_session_id").notNull(),
    aiAccountId: text("ai_account_id").notNull(),
    model: text("model").notNull(),
    reportedAt: ts("reported_at").notNull(),
    inputTokens: count("input_tokens"),
    outputTokens: count("output_tokens"),
    cacheReadTokens: count("cache_read_tokens"),
    cacheWriteTokens: count("cache_write_tokens"),
    costMicroUsd: count("cost_micro_usd"),
    dInputTokens: count("d_input_tokens"),
    dOutputTokens: count("d_output_tokens"),
    dCacheReadTokens: count("d_cache_read_tokens"),
    dCacheWriteTokens: count("d_cache_write_tokens"),
    dCostMicroUsd: count("d_cost_micro_usd"),
  },
  (t) => [
    primaryKey({ name: "usage_reports_pkey", columns: [t.workspaceId, t.id] }),
    index("usage_reports_session_idx").on(t.workspaceId, t.buildSessionId, t.model, t.id),
    index("usage_reports_time_idx").on(t.workspaceId, t.reportedAt),
    check("usage_reports_nonnegative_check", sql`least(d_input_tokens, d_output_tokens, d_cache_read_tokens, d_cache_write_tokens, d_cost_micro_usd) >= 0`),
  ],
);

/** Markdown imports: one uploaded file, previewed, then committed once. */
export const sessionImports = pgTable(
  "session_imports",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    projectId: text("project_id").notNull(),
    parser: text("parser").notNull(),
    status: text("status").notNull(),
    version: integer("version").notNull(),
    doc: jsonb("doc").notNull(),
  },
  (t) => [primaryKey({ name: "session_imports_pkey", columns: [t.workspaceId, t.id] }), index("session_imports_project_idx").on(t.workspaceId, t.projectId, t.id), check("session_imports_status_check", sql`status in ('previewed', 'committed')`)],
);

/** The rows of an import. */
export const sessionImportRows = pgTable(
  "session_import_rows",
  {
    workspaceId: text("workspace_id").notNull(),
    importId: text("import_id").notNull(),
    rowNumber: integer("row_number").notNull(),
    status: text("status").notNull(),
    doc: jsonb("doc").notNull(),
  },
  (t) => [primaryKey({ name: "session_import_rows_pkey", columns: [t.workspaceId, t.importId, t.rowNumber] })],
);

/** What imports created, by fingerprint: unique per project and target, so importing a file again creates nothing. */
export const sessionImportFingerprints = pgTable(
  "session_import_fingerprints",
  {
    workspaceId: text("workspace_id").notNull(),
    projectId: text("project_id").notNull(),
    target: text("target").notNull(),
    fingerprint: text("fingerprint").notNull(),
    recordId: text("record_id").notNull(),
    importId: text("import_id").notNull(),
    createdAt: ts("created_at").notNull(),
  },
  (t) => [primaryKey({ name: "session_import_fingerprints_pkey", columns: [t.workspaceId, t.projectId, t.target, t.fingerprint] })],
);
