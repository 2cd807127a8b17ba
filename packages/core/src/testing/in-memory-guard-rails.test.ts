import { InProcessRateLimiter } from "../rate-limits/in-process-rate-limiter.ts";
import { createInMemoryDeps } from "./create-in-memory-deps.ts";
import { describePlanStoreContract, describePolicyStoreContract, describeRateLimiterContract } from "./guard-rail-stores.contract.ts";
import type { MessagingHarness } from "./messaging-harness.ts";

async function inMemoryHarness(): Promise<MessagingHarness> {
  const world = createInMemoryDeps();
  return { stores: world.deps.stores, tx: world.deps.tx, notifier: world.notifier, advance: async (ms) => world.clock.advance(ms) };
}

describePolicyStoreContract(inMemoryHarness);
describePlanStoreContract(inMemoryHarness);
describeRateLimiterContract(async () => new InProcessRateLimiter());
