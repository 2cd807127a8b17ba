import { index, pgTable, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

/**
 * Sign-ups waiting for their email to be proven (DESIGN §2c). Not tied to a workspace (none
 * exists until the link is used), so no workspace_id: a small local table, read by its token
 * hash. The email is not unique (a pending sign-up never reserves its address). Only the keyed
 * hash of the token and the argon2id hash of the password are stored; a row is deleted when its
 * link is used, and by the sweep once expired.
 */
export const pendingSignUps = pgTable(
  "pending_sign_ups",
  {
    id: text("id").primaryKey(),
    tokenHash: text("token_hash").notNull(),
    email: text("email").notNull(),
    passwordHash: text("password_hash").notNull(),
    workspaceName: text("workspace_name").notNull(),
    displayName: text("display_name"),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, precision: 3 }).notNull(),
  },
  (t) => [uniqueIndex("pending_sign_ups_token_hash_key").on(t.tokenHash), index("pending_sign_ups_email_idx").on(t.email, t.createdAt), index("pending_sign_ups_expires_at_idx").on(t.expiresAt)],
);
