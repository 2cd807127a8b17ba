import { describeSignInThrottleStoreContract } from "@agentq/core/testing";
import { afterAll, beforeAll } from "vitest";
import { createPgStores } from "./pg-stores.ts";
import { createTestSchema, type TestSchema } from "./testing/test-schema.ts";

let db: TestSchema;
beforeAll(async () => {
  db = await createTestSchema();
});
afterAll(async () => {
  await db.drop();
});

describeSignInThrottleStoreContract(async () => createPgStores(db.sql).signInThrottle);
