import { describeAnonymousLimitStoreContract } from "@agentq/core/testing";
import { afterAll, beforeAll } from "vitest";
import { PgAnonymousLimitStore } from "./pg-guard-rail-stores.ts";
import { createTestSchema, type TestSchema } from "./testing/test-schema.ts";

let db: TestSchema;
beforeAll(async () => {
  db = await createTestSchema();
});
afterAll(async () => {
  await db.drop();
});

describeAnonymousLimitStoreContract(async () => new PgAnonymousLimitStore(db.sql));
