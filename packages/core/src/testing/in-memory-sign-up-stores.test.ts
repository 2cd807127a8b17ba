import { describe } from "vitest";
import { createInMemoryDeps } from "./create-in-memory-deps.ts";
import { describeLinkedIdentityStoreContract } from "./linked-identity-store.contract.ts";
import { describePendingSignUpStoreContract } from "./pending-sign-up-store.contract.ts";

describe("in-memory pending sign-ups and linked identities", () => {
  describePendingSignUpStoreContract(async () => createInMemoryDeps().deps.stores);
  describeLinkedIdentityStoreContract(async () => createInMemoryDeps().deps.stores);
});
