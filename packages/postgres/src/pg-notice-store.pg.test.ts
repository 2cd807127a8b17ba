import { describeNoticeStoreContract } from "@agentq/core/testing";
import { afterAll, beforeAll } from "vitest";
import { PgWakeupNotifier } from "./pg-wakeup-notifier.ts";
import { createPgMessagingHarness } from "./testing/pg-messaging-harness.ts";
import { createTestSchema, type TestSchema } from "./testing/test-schema.ts";

// The notice store contract and the withholding of messages (the same suite the in-memory stores pass) on PostgreSQL.
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

describeNoticeStoreContract(async () => createPgMessagingHarness(db.sql, notifier));
