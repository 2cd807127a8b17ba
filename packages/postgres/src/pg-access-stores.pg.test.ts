import { describeAccountStoreContract, describeCredentialStoreContract, describeWorkspaceStoreContract } from "@agentq/core/testing";
import { afterAll, beforeAll } from "vitest";
import { PgAccountStore } from "./pg-account-store.ts";
import { PgCredentialStore } from "./pg-credential-store.ts";
import { PgWorkspaceStore } from "./pg-workspace-store.ts";
import { createTestSchema, type TestSchema } from "./testing/test-schema.ts";

let db: TestSchema;
beforeAll(async () => {
  db = await createTestSchema();
});
afterAll(async () => {
  await db.drop();
});

const make = async () => ({ workspaces: new PgWorkspaceStore(db.sql), accounts: new PgAccountStore(db.sql), credentials: new PgCredentialStore(db.sql) });

describeWorkspaceStoreContract(make);
describeAccountStoreContract(make);
describeCredentialStoreContract(make);
