import { sql } from "drizzle-orm";
import { bigint, check, index, integer, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

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
    /** When the workspace was closed (DELETE /v1/workspaces/me). */
    closedAt: timestamp("closed_at", { withTimezone: true, precision: 3 }),
    /** When the background job finished deleting a closed workspace's payloads. */
    payloadsDeletedAt: timestamp("payloads_deleted_at", { withTimezone: true, precision: 3 }),
  },
  (t) => [
    check("workspaces_state_check", sql`${t.state} in ('active', 'frozen', 'closed')`),
    index("workspaces_payload_deletion_idx").on(t.closedAt).where(sql`state = 'closed' and payloads_deleted_at is null`),
  ],
);

/**
 * People who own, administer or view a workspace. Emails are unique across all workspaces, so
 * this table is a reference table rather than a distributed one under Citus. TOTP secrets are
 * stored encrypted (AES-256-GCM under a key derived from the server secret), never in clear.
 */
export const persons = pgTable(
  "persons",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    email: text("email").notNull(),
    displayName: text("display_name"),
    role: text("role").notNull().default("owner"),
    passwordHash: text("password_hash"),
    /** When TOTP was confirmed (MFA on). */
    mfaEnabledAt: timestamp("mfa_enabled_at", { withTimezone: true, precision: 3 }),
    /** The confirmed TOTP secret, encrypted. */
    totpSecretSealed: text("totp_secret_sealed"),
    /** A TOTP secret enrolled but not yet confirmed, encrypted. */
    totpPendingSealed: text("totp_pending_sealed"),
    /** The last TOTP time step accepted (a code is accepted once per step). */
    totpLastStep: bigint("totp_last_step", { mode: "number" }),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [
    primaryKey({ name: "persons_pkey", columns: [t.workspaceId, t.id] }),
    uniqueIndex("persons_email_key").on(t.email),
    check("persons_role_check", sql`${t.role} in ('owner', 'admin', 'viewer')`),
  ],
);
