import { describe } from "vitest";
import { createInMemoryDeps } from "./create-in-memory-deps.ts";
import { describeSignInThrottleStoreContract } from "./sign-in-throttle-store.contract.ts";

describe("in-memory sign-in throttle", () => {
  describeSignInThrottleStoreContract(async () => createInMemoryDeps().deps.stores.signInThrottle);
});
