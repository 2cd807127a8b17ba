import { sql } from "drizzle-orm";
import { check, index, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

/**
 * Single-use tokens of people: password reset (one hour) and invitation (72 hours). Only the
 * keyed hash of a token is stored (`token_hash`, unique); a spent token keeps its row with
 * used_at until it expires and the sweep deletes it.
 */
export const personTokens = pgTable(
  "person_tokens",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    personId: text("person_id").notNull(),
    purpose: text("purpose").notNull(),
    tokenHash: text("token_hash").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, precision: 3 }).notNull(),
    usedAt: timestamp("used_at", { withTimezone: true, precision: 3 }),
  },
  (t) => [
    primaryKey({ name: "person_tokens_pkey", columns: [t.workspaceId, t.id] }),
    uniqueIndex("person_tokens_token_hash_key").on(t.tokenHash),
    index("person_tokens_person_idx").on(t.workspaceId, t.personId, t.purpose, t.createdAt),
    index("person_tokens_expires_at_idx").on(t.expiresAt),
    check("person_tokens_purpose_check", sql`${t.purpose} in ('password_reset', 'invitation')`),
  ],
);
