import { createInMemoryDeps } from "./create-in-memory-deps.ts";
import { describeStatsStoreContract } from "./stats-store.contract.ts";

describeStatsStoreContract(async () => {
  const world = createInMemoryDeps();
  return { stores: world.deps.stores, tx: world.deps.tx, notifier: world.notifier, advance: async (ms) => world.clock.advance(ms) };
});
