import { describeAuditLogContract } from "./audit-log.contract.ts";
import { describeAuditTreeContract } from "./audit-tree.contract.ts";
import { createInMemoryDeps } from "./create-in-memory-deps.ts";
import { describeIdempotencyStoreContract } from "./idempotency-store.contract.ts";
import { InMemoryWakeupNotifier } from "./in-memory-wakeup-notifier.ts";
import { describeMessageStoreContract } from "./message-store.contract.ts";
import type { MessagingHarness } from "./messaging-harness.ts";
import { describeTxRunnerContract } from "./tx-runner.contract.ts";
import { describeWakeupNotifierContract } from "./wakeup-notifier.contract.ts";

async function inMemoryHarness(): Promise<MessagingHarness> {
  const world = createInMemoryDeps();
  return { stores: world.deps.stores, tx: world.deps.tx, notifier: world.notifier, advance: async (ms) => world.clock.advance(ms) };
}

describeMessageStoreContract(inMemoryHarness);
describeAuditLogContract(inMemoryHarness);
describeAuditTreeContract(async () => {
  const world = createInMemoryDeps();
  const tables = world.tables.messaging;
  return {
    stores: world.deps.stores,
    tx: world.deps.tx,
    notifier: world.notifier,
    advance: async (ms) => world.clock.advance(ms),
    async forgetTree(workspaceId) {
      const mine = (key: string) => (JSON.parse(key) as [string, number])[0] === workspaceId;
      for (const [key] of tables.auditTreeHashes.entries()) if (mine(key)) tables.auditTreeHashes.delete(null, key);
      tables.auditTreeSizes.delete(null, workspaceId);
      tables.auditCheckpoints.delete(null, workspaceId);
      tables.auditTreeBacklog.set(null, workspaceId, true);
    },
    async tamperRow(_workspaceId, auditId, details) {
      const row = tables.audit.get(auditId);
      if (row !== undefined) tables.audit.set(null, auditId, { ...row, details });
    },
  };
});
describeIdempotencyStoreContract(inMemoryHarness);
describeTxRunnerContract(inMemoryHarness);
describeWakeupNotifierContract(async () => ({ ...(await inMemoryHarness()), notifier: new InMemoryWakeupNotifier() }));
