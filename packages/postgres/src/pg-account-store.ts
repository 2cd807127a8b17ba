import type { AccountStore, AiAccount, AiAccountState } from "@agentq/core";
import { uniqueViolationOutcome, withPgErrors } from "./pg-errors.ts";
import { queryStore } from "./pg-query-store.ts";
import {
  aiAccountsFindAddressable, aiAccountsFindById, aiAccountsInsert, aiAccountsList, aiAccountsLoadPrincipalContext, aiAccountsNameTaken, aiAccountsRename, aiAccountsTransition,
} from "./queries/ai-accounts.ts";

/** AccountStore on PostgreSQL, bound to a pool or to one transaction. */
export class PgAccountStore extends queryStore({
  findById: aiAccountsFindById, findAddressable: aiAccountsFindAddressable, list: aiAccountsList, loadPrincipalContext: aiAccountsLoadPrincipalContext,
}) implements AccountStore {
  create(p: { account: AiAccount }): Promise<{ kind: "created" } | { kind: "name_taken" }> {
    return withPgErrors(async () => ((await aiAccountsInsert(this.sql, p)) ? { kind: "created" } : { kind: "name_taken" }));
  }

  rename(p: { workspaceId: string; accountId: string; friendlyName: string; now: Date }): Promise<{ kind: "renamed"; account: AiAccount } | { kind: "name_taken" } | { kind: "not_found" }> {
    return withPgErrors(async () => {
      const current = await aiAccountsFindById(this.sql, p);
      if (current === null || current.state === "revoked") return { kind: "not_found" };
      // Checked first so the common refusal does not abort the caller's transaction; a
      // concurrent rename to the same name still ends in the unique violation below.
      if (await aiAccountsNameTaken(this.sql, { workspaceId: p.workspaceId, friendlyName: p.friendlyName, exceptId: p.accountId })) return { kind: "name_taken" };
      try {
        const account = await aiAccountsRename(this.sql, p);
        return account === null ? { kind: "not_found" } : { kind: "renamed", account };
      } catch (e) {
        if (uniqueViolationOutcome(e) === "name_taken") return { kind: "name_taken" };
        throw e;
      }
    });
  }

  transition(p: { workspaceId: string; accountId: string; from: readonly AiAccountState[]; to: AiAccountState; now: Date }): Promise<{ kind: "moved"; account: AiAccount } | { kind: "wrong_state"; account: AiAccount } | { kind: "not_found" }> {
    return withPgErrors(async () => {
      const moved = await aiAccountsTransition(this.sql, p);
      if (moved !== null) return { kind: "moved", account: moved };
      const current = await aiAccountsFindById(this.sql, p);
      return current === null ? { kind: "not_found" } : { kind: "wrong_state", account: current };
    });
  }
}
