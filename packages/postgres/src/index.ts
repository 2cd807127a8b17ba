export { migrate, MIGRATIONS_FOLDER } from "./migrate.ts";
export { startEmbeddedPostgres, EmbeddedPostgresError, repoRoot } from "./embedded.ts";
export type { EmbeddedPostgres, EmbeddedPostgresOptions } from "./embedded.ts";
export { translatePgError, isUnavailable, uniqueViolationOutcome, withPgErrors } from "./pg-errors.ts";
export type { UniqueViolationOutcome } from "./pg-errors.ts";
export type { SqlClient } from "./sql-client.ts";
export { PgWorkspaceStore } from "./pg-workspace-store.ts";
export { PgAccountStore } from "./pg-account-store.ts";
export { PgCredentialStore } from "./pg-credential-store.ts";
