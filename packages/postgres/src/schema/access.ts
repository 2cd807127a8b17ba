import { sql } from "drizzle-orm";
import { check, index, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

/**
 * AI accounts. A friendly name is unique in its workspace among accounts that are not revoked
 * (a partial unique index), so a revoked account's name can be reused.
 */
export const aiAccounts = pgTable(
  "ai_accounts",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    friendlyName: text("friendly_name").notNull(),
    state: text("state").notNull(),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
    updatedAt: timestamp("updated_at", { withTimezone: true, precision: 3 }).notNull(),
    /** When one of its credentials last authenticated a request (at most a minute old: a throttled write), or null. */
    lastActiveAt: timestamp("last_active_at", { withTimezone: true, precision: 3 }),
  },
  (t) => [
    primaryKey({ name: "ai_accounts_pkey", columns: [t.workspaceId, t.id] }),
    uniqueIndex("ai_accounts_friendly_name_key").on(t.workspaceId, t.friendlyName).where(sql`state <> 'revoked'`),
    // The authenticator loads the account by id alone (the credential names it).
    index("ai_accounts_id_idx").on(t.id),
    check("ai_accounts_state_check", sql`${t.state} in ('active', 'frozen', 'revoked')`),
  ],
);

/** Credentials: only the keyed hash of a token is stored (`token_hash`, unique). */
export const credentials = pgTable(
  "credentials",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    aiAccountId: text("ai_account_id").notNull(),
    tier: text("tier").notNull(),
    scopes: text("scopes").array().notNull(),
    name: text("name").notNull(),
    state: text("state").notNull(),
    tokenHash: text("token_hash").notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, precision: 3 }),
    projectId: text("project_id"),
    createdAt: timestamp("created_at", { withTimezone: true, precision: 3 }).notNull(),
    revokedAt: timestamp("revoked_at", { withTimezone: true, precision: 3 }),
    rotatedFromId: text("rotated_from_id"),
    rotatedToId: text("rotated_to_id"),
    /** When it last authenticated a request (at most a minute old: a throttled write), or null. */
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, precision: 3 }),
  },
  (t) => [
    primaryKey({ name: "credentials_pkey", columns: [t.workspaceId, t.id] }),
    uniqueIndex("credentials_token_hash_key").on(t.tokenHash),
    index("credentials_account_idx").on(t.workspaceId, t.aiAccountId, t.id),
    check("credentials_state_check", sql`${t.state} in ('active', 'revoked')`),
    check("credentials_tier_check", sql`${t.tier} in ('operational', 'administrative')`),
  ],
);
