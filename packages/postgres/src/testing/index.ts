export { createTestSchema, testDatabaseUrl } from "./test-schema.ts";
export type { TestSchema } from "./test-schema.ts";
export { startTestDatabase, TEST_EMBEDDED_DATA_DIR } from "./test-database.ts";
export type { TestDatabase } from "./test-database.ts";
export { createPgMessagingHarness, shiftStoredTimesBack } from "./pg-messaging-harness.ts";
