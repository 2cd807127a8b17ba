import { describe } from "vitest";
import { describeAnonymousLimitStoreContract } from "./anonymous-limit-store.contract.ts";
import { InMemoryAnonymousLimitStore } from "./in-memory-anonymous-limits.ts";

describe("in-memory anonymous limits", () => {
  describeAnonymousLimitStoreContract(async () => new InMemoryAnonymousLimitStore());
});
