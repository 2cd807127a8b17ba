import { sql } from "drizzle-orm";
import { check, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

/** Workspaces: the tenants. `id` is the workspace id, the distribution column (DESIGN §5). */
export const workspaces = pgTable(
  "workspaces",
  {
    id: text("id").primaryKey(),
    name: text("name").notNull(),
    ownerPersonId: text("owner_person_id").notNull(),
    state: text("state").notNull(),
    maxDeliveries: integer("max_deliveries").notNull().default(10),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [check("workspaces_state_check", sql`${t.state} in ('active', 'frozen', 'closed')`)],
);

/**
 * People who own or administer a workspace. Emails are unique across all workspaces, so this
 * table is a reference table rather than a distributed one under Citus.
 */
export const persons = pgTable(
  "persons",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    email: text("email").notNull(),
    passwordHash: text("password_hash"),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [primaryKey({ name: "persons_pkey", columns: [t.workspaceId, t.id] }), uniqueIndex("persons_email_key").on(t.email)],
);
