import { TEST_SECRETS, describeSessionStateStoresContract, describeSessionStateTables } from "@agentq/core/testing";
import { createPgDeps } from "./pg-deps.ts";
import { afterAll, beforeAll } from "vitest";
import { PgWakeupNotifier } from "./pg-wakeup-notifier.ts";
import { createPgMessagingHarness } from "./testing/pg-messaging-harness.ts";
import { createTestSchema, type TestSchema } from "./testing/test-schema.ts";

// The session-state store contract (the same suite the in-memory stores pass) on PostgreSQL.
let db: TestSchema;
let notifier: PgWakeupNotifier;
beforeAll(async () => {
  db = await createTestSchema({ max: 10 });
  notifier = new PgWakeupNotifier(db.sql);
});
afterAll(async () => {
  await notifier.close();
  await db.drop();
});

describeSessionStateStoresContract(async () => createPgMessagingHarness(db.sql, notifier));
describeSessionStateTables("PostgreSQL", async (clock) => createPgDeps({ sql: db.sql, secrets: TEST_SECRETS, notifier, clock }));
