import { describeOAuthStoreContract } from "@agentq/core/testing";
import { afterAll, beforeAll } from "vitest";
import { PgAccountStore } from "./pg-account-store.ts";
import { PgCredentialStore } from "./pg-credential-store.ts";
import { PgOAuthStore } from "./pg-oauth-store.ts";
import { PgWorkspaceStore } from "./pg-workspace-store.ts";
import { createTestSchema, type TestSchema } from "./testing/test-schema.ts";

let db: TestSchema;
beforeAll(async () => {
  db = await createTestSchema({ max: 10 });
});
afterAll(async () => {
  await db.drop();
});

describeOAuthStoreContract(async () => ({ workspaces: new PgWorkspaceStore(db.sql), accounts: new PgAccountStore(db.sql), credentials: new PgCredentialStore(db.sql), oauth: new PgOAuthStore(db.sql) }));
