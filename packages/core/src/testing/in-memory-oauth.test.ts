import { createInMemoryDeps } from "./create-in-memory-deps.ts";
import { describeOAuthStoreContract } from "./oauth-store.contract.ts";

describeOAuthStoreContract(async () => createInMemoryDeps().deps.stores);
