import { createInMemoryDeps } from "./create-in-memory-deps.ts";
import type { MessagingHarness } from "./messaging-harness.ts";
import { describeSessionStateStoresContract } from "./session-state-stores.contract.ts";
import { describeSessionStateTables } from "./session-state-tables.contract.ts";
import { describeLearningStoresContract } from "./lesson-and-rule-stores.contract.ts";

async function inMemoryHarness(): Promise<MessagingHarness> {
  const world = createInMemoryDeps();
  return { stores: world.deps.stores, tx: world.deps.tx, notifier: world.notifier, advance: async (ms) => world.clock.advance(ms) };
}

describeSessionStateStoresContract(inMemoryHarness);
describeSessionStateTables("in memory", async (clock) => createInMemoryDeps({ clock }).deps);
describeLearningStoresContract(inMemoryHarness);
