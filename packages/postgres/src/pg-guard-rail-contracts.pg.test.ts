import { describePlanStoreContract, describePolicyStoreContract, describeRateLimiterContract } from "@agentq/core/testing";
import { afterAll, beforeAll } from "vitest";
import { PgRateLimiter } from "./pg-guard-rail-stores.ts";
import { PgWakeupNotifier } from "./pg-wakeup-notifier.ts";
import { createPgMessagingHarness } from "./testing/pg-messaging-harness.ts";
import { createTestSchema, type TestSchema } from "./testing/test-schema.ts";

// The shared guard-rail contract suites (the same ones the in-memory adapters pass) on PostgreSQL.
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

describePolicyStoreContract(async () => createPgMessagingHarness(db.sql, notifier));
describePlanStoreContract(async () => createPgMessagingHarness(db.sql, notifier));
describeRateLimiterContract(async () => new PgRateLimiter(db.sql));
