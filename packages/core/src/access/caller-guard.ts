import type { Principal } from "./model.ts";

/** What a store's write checks about a deferred caller in the same statement: the account is active and in an active workspace. */
export interface CallerGuard {
  accountId: string;
}

/** The guard a write must check for this principal: null when its account and workspace were read fresh for this request. */
export function callerGuardOf(principal: Principal): CallerGuard | null {
  return principal.kind !== "person" && principal.callerCheckDeferred === true ? { accountId: principal.account.id } : null;
}
