import { sql } from "drizzle-orm";
import { boolean, check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

/**
 * Workspace policies: one row per named policy holding its current version and whether that
 * version is required (the send gate reads only this table and the acknowledgements, through
 * `policies_required_idx`).
 */
export const policies = pgTable(
  "policies",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    name: text("name").notNull(),
    currentVersion: integer("current_version").notNull(),
    currentRequired: boolean("current_required").notNull(),
    /** The current version is of kind approval (DESIGN §2c): a send reads its holds through `policies_approval_idx`. */
    currentApproval: boolean("current_approval").notNull().default(false),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [
    primaryKey({ name: "policies_pkey", columns: [t.workspaceId, t.id] }),
    uniqueIndex("policies_name_key").on(t.workspaceId, t.name),
    index("policies_required_idx").on(t.workspaceId, t.name).where(sql`current_required`),
    // Only approval policies: a workspace without one costs a send one empty index probe.
    index("policies_approval_idx").on(t.workspaceId, t.name).where(sql`current_approval`),
  ],
);

/** Every published version of every policy (append-only). */
export const policyVersions = pgTable(
  "policy_versions",
  {
    workspaceId: text("workspace_id").notNull(),
    policyId: text("policy_id").notNull(),
    version: integer("version").notNull(),
    required: boolean("required").notNull(),
    /** `acknowledgement` or `approval`. */
    kind: text("kind").notNull().default("acknowledgement"),
    /** An approval version's holds (null: any value of that dimension); all null for an acknowledgement. */
    holdTemplates: text("hold_templates").array(),
    holdRecipients: text("hold_recipients").array(),
    holdSenders: text("hold_senders").array(),
    holdPriorities: text("hold_priorities").array(),
    requireStepUp: boolean("require_step_up").notNull().default(false),
    body: text("body").notNull(),
    publishedAt: timestamp("published_at", { withTimezone: true, precision: 3 }).notNull(),
    publishedBy: text("published_by"),
  },
  (t) => [
    primaryKey({ name: "policy_versions_pkey", columns: [t.workspaceId, t.policyId, t.version] }),
    check("policy_versions_kind_check", sql`${t.kind} in ('acknowledgement', 'approval')`),
  ],
);

/** The version of each policy each AI account last acknowledged. */
export const policyAcknowledgements = pgTable(
  "policy_acknowledgements",
  {
    workspaceId: text("workspace_id").notNull(),
    policyId: text("policy_id").notNull(),
    accountId: text("account_id").notNull(),
    version: integer("version").notNull(),
    acknowledgedAt: timestamp("acknowledged_at", { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [primaryKey({ name: "policy_acknowledgements_pkey", columns: [t.workspaceId, t.policyId, t.accountId] })],
);

/**
 * Fixed-window request counters shared by every server process: one row per bucket
 * (`credential` or `workspace`), subject and minute.
 */
export const rateLimitCounters = pgTable(
  "rate_limit_counters",
  {
    workspaceId: text("workspace_id").notNull(),
    bucket: text("bucket").notNull(),
    subjectId: text("subject_id").notNull(),
    windowStart: timestamp("window_start", { withTimezone: true, precision: 3 }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ name: "rate_limit_counters_pkey", columns: [t.workspaceId, t.bucket, t.subjectId, t.windowStart] }), index("rate_limit_counters_window_idx").on(t.windowStart)],
);

/**
 * Counters of anonymous requests (sign-up, reset, OAuth registration, notice intake...): one row
 * per bucket and key (a keyed hash of a client address or an email), whose window opened at the
 * key's first counted request and ends at `window_ends_at`. Not tied to a workspace (an anonymous
 * request has none). Rows whose window ended are swept by the server's background work.
 */
export const anonymousLimitCounters = pgTable(
  "anonymous_limit_counters",
  {
    bucket: text("bucket").notNull(),
    key: text("key").notNull(),
    windowStart: timestamp("window_start", { withTimezone: true, precision: 3 }).notNull(),
    windowEndsAt: timestamp("window_ends_at", { withTimezone: true, precision: 3 }).notNull(),
    count: integer("count").notNull(),
  },
  (t) => [primaryKey({ name: "anonymous_limit_counters_pkey", columns: [t.bucket, t.key] }), index("anonymous_limit_counters_ends_idx").on(t.windowEndsAt)],
);

/**
 * A workspace's plan and its per-workspace overrides of the plan's limits (a JSON object of
 * PlanLimits fields; a null value means unlimited). No row: the default plan.
 */
export const workspacePlans = pgTable("workspace_plans", {
  workspaceId: text("workspace_id").primaryKey(),
  plan: text("plan").notNull(),
  overrides: jsonb("overrides").notNull(),
  updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull(),
});
