import { describeAuditLogContract } from "./audit-log.contract.ts";
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
describeIdempotencyStoreContract(inMemoryHarness);
describeTxRunnerContract(inMemoryHarness);
describeWakeupNotifierContract(async () => ({ ...(await inMemoryHarness()), notifier: new InMemoryWakeupNotifier() }));
