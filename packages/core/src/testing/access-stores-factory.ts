import type { AccountStore, CredentialStore, WorkspaceStore } from "../ports.ts";

/**
 * The access stores under test, as a contract suite receives them. They must share one
 * database (the account store reads workspaces; credentials reference accounts). Records from
 * earlier tests may remain: every suite uses fresh workspaces, unique emails and unique token
 * hashes, so stores need not be emptied between tests.
 */
export interface AccessStoresUnderTest {
  workspaces: WorkspaceStore;
  accounts: AccountStore;
  credentials: CredentialStore;
}

/** Builds (or hands back) the stores under test; called before every test. */
export type AccessStoresFactory = () => Promise<AccessStoresUnderTest>;
