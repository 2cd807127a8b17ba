import type { AiAccount } from "../access/model.ts";
import type { AccountStore, Clock } from "../ports.ts";

/** How long a process trusts a friendly name's resolution before reading it again. */
export const RECIPIENT_CACHE_TTL_MS = 10_000;

const MAX_ENTRIES = 10_000;

interface CachedRecipient {
  account: AiAccount;
  fetchedAt: number;
}

// One cache per pool-bound account store (that is, per process and database). Only successful
// resolutions are kept: a name that does not resolve is read again on the next send, so an
// account created a moment ago is reachable at once. A stale entry can never misdirect a
// message: the send's write re-checks, in its own statement, that the id still holds that name
// and is not revoked (`MessageStore.acceptSend`, `recipient_gone`), and the send then resolves
// the name afresh.
const caches = new WeakMap<AccountStore, Map<string, CachedRecipient>>();

/**
 * The addressable (non-revoked) AI account a friendly name names in a workspace, read through a
 * per-process cache of `RECIPIENT_CACHE_TTL_MS`; `fresh` skips the cache and refreshes it.
 * Returns the account and whether it came from the cache.
 */
export async function resolveRecipient(
  deps: { stores: { accounts: AccountStore }; clock: Clock },
  p: { workspaceId: string; friendlyName: string; fresh: boolean },
): Promise<{ account: AiAccount | null; cached: boolean }> {
  let cache = caches.get(deps.stores.accounts);
  if (cache === undefined) {
    cache = new Map();
    caches.set(deps.stores.accounts, cache);
  }
  const key = `${p.workspaceId}\u0000${p.friendlyName}`;
  const now = deps.clock.now().getTime();
  const hit = p.fresh ? undefined : cache.get(key);
  if (hit !== undefined && now - hit.fetchedAt >= 0 && now - hit.fetchedAt < RECIPIENT_CACHE_TTL_MS) return { account: hit.account, cached: true };
  const account = await deps.stores.accounts.findAddressable({ workspaceId: p.workspaceId, friendlyName: p.friendlyName });
  if (account === null || account.state === "revoked") {
    cache.delete(key);
    return { account: null, cached: false };
  }
  if (cache.size >= MAX_ENTRIES) cache.clear();
  cache.set(key, { account, fetchedAt: now });
  return { account, cached: false };
}
