import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

/**
 * DSA and DMCA notices (DESIGN §2b). Not scoped by workspace: anyone files one, and the review
 * sets the affected workspace. The columns the stores select on are columns; the rest of the
 * notice (submission, items, decision, measures, counter-notice, history) is the `body`
 * document. Every write is a compare-and-set on `version`.
 */
export const notices = pgTable(
  "notices",
  {
    id: text("id").primaryKey(),
    kind: text("kind").notNull(),
    state: text("state").notNull(),
    category: text("category").notNull(),
    statusTokenHash: text("status_token_hash").notNull(),
    affectedWorkspaceId: text("affected_workspace_id"),
    disclosedAt: timestamp("disclosed_at", { withTimezone: true, precision: 3 }),
    restorationEarliestAt: timestamp("restoration_earliest_at", { withTimezone: true, precision: 3 }),
    courtActionAt: timestamp("court_action_at", { withTimezone: true, precision: 3 }),
    receivedAt: timestamp("received_at", { withTimezone: true, precision: 3 }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull(),
    version: integer("version").notNull(),
    body: jsonb("body").notNull(),
  },
  (t) => [
    uniqueIndex("notices_status_token_hash_key").on(t.statusTokenHash),
    // GET /v1/notices: a workspace's disclosed notices, newest first.
    index("notices_disclosed_idx").on(t.affectedWorkspaceId, t.id).where(sql`disclosed_at is not null`),
    index("notices_state_idx").on(t.state, t.id),
    index("notices_received_idx").on(t.receivedAt),
    // The restoration job: contested DMCA notices by the opening of their window.
    index("notices_restoration_due_idx").on(t.restorationEarliestAt).where(sql`state = 'contested' and kind = 'dmca' and court_action_at is null`),
    check("notices_kind_check", sql`${t.kind} in ('dsa', 'dmca')`),
    check("notices_state_check", sql`${t.state} in ('received', 'under_review', 'needs_information', 'action_taken', 'no_action', 'dismissed', 'contested', 'restored', 'upheld', 'withdrawn')`),
  ],
);
