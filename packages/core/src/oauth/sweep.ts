import type { CoreDeps } from "../deps.ts";
import { IDLE_CLIENT_LIFETIME_MS, REFRESH_TOKEN_LIFETIME_MS, UNUSED_CLIENT_LIFETIME_MS } from "./model.ts";

/**
 * The OAuth housekeeping of the background maintenance: deletes idle clients (never used for
 * UNUSED_CLIENT_LIFETIME_MS after registering, or unused for IDLE_CLIENT_LIFETIME_MS; such a
 * client gets invalid_client and registers again) and authorization codes expired for REFRESH_TOKEN_LIFETIME_MS (30 days: a
 * replay within that time still revokes what it issued).
 * Returns how many rows it deleted.
 */
export async function sweepOAuth(deps: Pick<CoreDeps, "stores" | "clock">, limit = 1000): Promise<number> {
  const now = deps.clock.now().getTime();
  const clients = await deps.stores.oauth.deleteIdleClients({ unusedBefore: new Date(now - UNUSED_CLIENT_LIFETIME_MS), idleBefore: new Date(now - IDLE_CLIENT_LIFETIME_MS), limit });
  const codes = await deps.stores.oauth.purgeCodes({ before: new Date(now - REFRESH_TOKEN_LIFETIME_MS), limit });
  return clients + codes;
}
