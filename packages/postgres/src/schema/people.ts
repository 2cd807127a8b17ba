import { sql } from "drizzle-orm";
import { boolean, check, index, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

/**
 * People's browser sessions. Only the keyed hash of a session value is stored (`token_hash`,
 * unique). An ended session keeps its row (ended_at) until the sweep deletes it.
 */
export const personSessions = pgTable(
  "person_sessions",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    personId: text("person_id").notNull(),
    stage: text("stage").notNull(),
    tokenHash: text("token_hash").notNull(),
    createdWithMfa: boolean("created_with_mfa").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
    lastSeenAt: timestamp("last_seen_at", { withTimezone: true, precision: 3 }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, precision: 3 }).notNull(),
    stepUpUntil: timestamp("step_up_until", { withTimezone: true, precision: 3 }),
    endedAt: timestamp("ended_at", { withTimezone: true, precision: 3 }),
  },
  (t) => [
    primaryKey({ name: "person_sessions_pkey", columns: [t.workspaceId, t.id] }),
    uniqueIndex("person_sessions_token_hash_key").on(t.tokenHash),
    index("person_sessions_person_idx").on(t.workspaceId, t.personId).where(sql`ended_at is null`),
    check("person_sessions_stage_check", sql`${t.stage} in ('active', 'pending_mfa')`),
  ],
);

/** Single-use MFA recovery codes: only keyed hashes; a used code keeps its row with used_at. */
export const personRecoveryCodes = pgTable(
  "person_recovery_codes",
  {
    workspaceId: text("workspace_id").notNull(),
    personId: text("person_id").notNull(),
    codeHash: text("code_hash").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true, precision: 3 }),
  },
  (t) => [primaryKey({ name: "person_recovery_codes_pkey", columns: [t.workspaceId, t.personId, t.codeHash] })],
);

/**
 * Sign-in, MFA and step-up attempts holding their place in the throttle's windows (10 per email,
 * 30 per client address in 15 minutes): a row goes in before the password or code is checked and
 * is deleted when the attempt succeeds, so what stays are the failures. Email and address are
 * stored only as keyed hashes. Not tied to a workspace (an unknown email has none).
 */
export const signInFailures = pgTable(
  "sign_in_failures",
  {
    id: text("id").primaryKey(),
    emailKey: text("email_key").notNull(),
    addressKey: text("address_key").notNull(),
    failedAt: timestamp("failed_at", { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [index("sign_in_failures_email_idx").on(t.emailKey, t.failedAt), index("sign_in_failures_address_idx").on(t.addressKey, t.failedAt), index("sign_in_failures_failed_at_idx").on(t.failedAt)],
);
