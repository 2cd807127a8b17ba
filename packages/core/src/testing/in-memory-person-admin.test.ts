import { describe } from "vitest";
import { createInMemoryDeps } from "./create-in-memory-deps.ts";
import { describePersonAdminStoresContract } from "./person-admin-stores.contract.ts";

describe("in-memory person tokens and workspace people", () => {
  describePersonAdminStoresContract(async () => createInMemoryDeps().deps.stores);
});
