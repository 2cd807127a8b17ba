import { describeAuditLogContract, describeAuditTreeContract, describeIdempotencyStoreContract, describeMessageStoreContract, describeTxRunnerContract, describeWakeupNotifierContract } from "@agentq/core/testing";
import { afterAll, beforeAll } from "vitest";
import { PgWakeupNotifier } from "./pg-wakeup-notifier.ts";
import { createPgMessagingHarness } from "./testing/pg-messaging-harness.ts";
import { createTestSchema, type TestSchema } from "./testing/test-schema.ts";

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

const make = async () => createPgMessagingHarness(db.sql, notifier);

describeMessageStoreContract(make);
describeAuditLogContract(make);
describeAuditTreeContract(async () => ({
  ...(await make()),
  async forgetTree(workspaceId) {
    await db.sql`delete from audit_tree_hashes where workspace_id = ${workspaceId}`;
    await db.sql`delete from audit_checkpoints where workspace_id = ${workspaceId}`;
    await db.sql`insert into audit_tree_backlog (workspace_id) values (${workspaceId})`;
  },
  async tamperRow(workspaceId, auditId, details) {
    await db.sql`update audit_log set details = ${db.sql.json(details as never)} where workspace_id = ${workspaceId} and id = ${auditId}`;
  },
}));
describeIdempotencyStoreContract(make);
describeTxRunnerContract(make);
describeWakeupNotifierContract(make);
