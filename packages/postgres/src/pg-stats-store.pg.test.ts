import { describeStatsStoreContract } from "@agentq/core/testing";
import { afterAll, beforeAll } from "vitest";
import { PgWakeupNotifier } from "./pg-wakeup-notifier.ts";
import { createPgMessagingHarness } from "./testing/pg-messaging-harness.ts";
import { createTestSchema, type TestSchema } from "./testing/test-schema.ts";

let db: TestSchema;
let notifier: PgWakeupNotifier;
beforeAll(async () => {
  db = await createTestSchema({ max: 4 });
  notifier = new PgWakeupNotifier(db.sql);
});
afterAll(async () => {
  await notifier.close();
  await db.drop();
});

describeStatsStoreContract(async () => createPgMessagingHarness(db.sql, notifier));
