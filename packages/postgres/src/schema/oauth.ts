import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex } from "drizzle-orm/pg-core";

const at = (name: string) => timestamp(name, { withTimezone: true, precision: 3 });

/** OAuth clients registered by RFC 7591 (global: registration has no workspace). Idle ones are deleted. */
export const oauthClients = pgTable(
  "oauth_clients",
  {
    id: text("id").primaryKey(),
    clientName: text("client_name"),
    redirectUris: text("redirect_uris").array().notNull(),
    metadata: jsonb("metadata").notNull(),
    createdAt: at("created_at").notNull(),
    lastUsedAt: at("last_used_at"),
  },
  (t) => [index("oauth_clients_idle_idx").on(sql`coalesce(${t.lastUsedAt}, ${t.createdAt})`)],
);

/** Authorization codes: only the keyed hash is stored; consumed once by a guarded UPDATE. */
export const oauthAuthorizationCodes = pgTable(
  "oauth_authorization_codes",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    clientId: text("client_id").notNull(),
    codeHash: text("code_hash").notNull(),
    personId: text("person_id"),
    aiAccountId: text("ai_account_id").notNull(),
    scopes: text("scopes").array().notNull(),
    redirectUri: text("redirect_uri").notNull(),
    codeChallenge: text("code_challenge").notNull(),
    resource: text("resource"),
    createdAt: at("created_at").notNull(),
    expiresAt: at("expires_at").notNull(),
    consumedAt: at("consumed_at"),
    grantId: text("grant_id"),
  },
  (t) => [
    primaryKey({ name: "oauth_authorization_codes_pkey", columns: [t.workspaceId, t.id] }),
    uniqueIndex("oauth_authorization_codes_code_hash_key").on(t.codeHash),
    index("oauth_authorization_codes_expires_idx").on(t.expiresAt),
  ],
);

/** Grants (Connections): one approval of a client acting as one AI account. */
export const oauthGrants = pgTable(
  "oauth_grants",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    clientId: text("client_id").notNull(),
    clientName: text("client_name"),
    redirectUri: text("redirect_uri").notNull(),
    aiAccountId: text("ai_account_id").notNull(),
    personId: text("person_id"),
    scopes: text("scopes").array().notNull(),
    createdAt: at("created_at").notNull(),
    lastUsedAt: at("last_used_at").notNull(),
    refreshExpiresAt: at("refresh_expires_at").notNull(),
    revokedAt: at("revoked_at"),
    revokedReason: text("revoked_reason"),
  },
  (t) => [
    primaryKey({ name: "oauth_grants_pkey", columns: [t.workspaceId, t.id] }),
    index("oauth_grants_client_idx").on(t.workspaceId, t.clientId, t.id),
    check("oauth_grants_revoked_check", sql`(${t.revokedAt} is null) = (${t.revokedReason} is null)`),
    check("oauth_grants_revoked_reason_check", sql`${t.revokedReason} in ('disconnected', 'refresh_token_replayed', 'authorization_code_replayed', 'revoked_by_client', 'ai_account_revoked')`),
  ],
);

/** The access credentials issued under each grant (ordinary credentials, linked here). */
export const oauthGrantCredentials = pgTable(
  "oauth_grant_credentials",
  {
    workspaceId: text("workspace_id").notNull(),
    credentialId: text("credential_id").notNull(),
    grantId: text("grant_id").notNull(),
  },
  (t) => [primaryKey({ name: "oauth_grant_credentials_pkey", columns: [t.workspaceId, t.credentialId] }), index("oauth_grant_credentials_grant_idx").on(t.workspaceId, t.grantId)],
);

/**
 * Refresh tokens, one row per generation; only the current one and the most recently spent one
 * are kept (spending deletes older generations). Keyed hashes only.
 */
export const oauthRefreshTokens = pgTable(
  "oauth_refresh_tokens",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    grantId: text("grant_id").notNull(),
    clientId: text("client_id").notNull(),
    generation: integer("generation").notNull(),
    tokenHash: text("token_hash").notNull(),
    createdAt: at("created_at").notNull(),
    expiresAt: at("expires_at").notNull(),
    spentAt: at("spent_at"),
    revokedAt: at("revoked_at"),
  },
  (t) => [
    primaryKey({ name: "oauth_refresh_tokens_pkey", columns: [t.workspaceId, t.id] }),
    uniqueIndex("oauth_refresh_tokens_token_hash_key").on(t.tokenHash),
    uniqueIndex("oauth_refresh_tokens_generation_key").on(t.workspaceId, t.grantId, t.generation),
  ],
);
