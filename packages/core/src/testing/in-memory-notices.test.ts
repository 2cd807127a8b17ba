import { createInMemoryDeps } from "./create-in-memory-deps.ts";
import { describeNoticeStoreContract } from "./notice-store.contract.ts";

describeNoticeStoreContract(async () => {
  const world = createInMemoryDeps();
  return { stores: world.deps.stores, tx: world.deps.tx, notifier: world.notifier, advance: async (ms) => world.clock.advance(ms) };
});
