import type { AccessCaller } from "../access/ai-accounts.ts";
import type { AiAccount, Credential } from "../access/model.ts";
import type { CoreDeps } from "../deps.ts";
import { DomainError, notFound } from "../errors.ts";
import { isUlid } from "../ids.ts";
import type { Stores } from "../ports.ts";
import { revokeGrantInTx } from "./grants.ts";
import { grantState, type GrantRevocationCause, type GrantState, type OAuthGrant } from "./model.ts";
import { redirectHost } from "./redirect-uris.ts";

/** A grant on the wire: one Connection (DESIGN §2b). */
export interface ConnectionView {
  id: string;
  client_id: string;
  /** The client's self-asserted name, or null. */
  client_name: string | null;
  /** host[:port] of the redirect URI the approval went to. */
  redirect_host: string;
  ai_account: { id: string; friendly_name: string };
  scopes: string[];
  created_at: string;
  /** The last token issued under the grant (code exchange or refresh). */
  last_used_at: string;
  state: GrantState;
  revoked_at: string | null;
  revoked_reason: GrantRevocationCause | null;
}

/** The wire view of a grant whose AI account is `account`. */
export function connectionView(grant: OAuthGrant, account: Pick<AiAccount, "id" | "friendlyName">, now: Date): ConnectionView {
  return {
    id: grant.id,
    client_id: grant.clientId,
    client_name: grant.clientName,
    redirect_host: redirectHost(grant.redirectUri),
    ai_account: { id: account.id, friendly_name: account.friendlyName },
    scopes: [...grant.scopes],
    created_at: grant.createdAt.toISOString(),
    last_used_at: grant.lastUsedAt.toISOString(),
    state: grantState(grant, now),
    revoked_at: grant.revokedAt?.toISOString() ?? null,
    revoked_reason: grant.revokedReason,
  };
}

/** The views of `grants`, reading each AI account once. */
export async function connectionViews(stores: Stores, grants: readonly OAuthGrant[], now: Date): Promise<ConnectionView[]> {
  const accounts = new Map<string, Pick<AiAccount, "id" | "friendlyName">>();
  const views: ConnectionView[] = [];
  for (const g of grants) {
    let account = accounts.get(g.aiAccountId);
    if (account === undefined) {
      account = (await stores.accounts.findById({ workspaceId: g.workspaceId, accountId: g.aiAccountId })) ?? { id: g.aiAccountId, friendlyName: "" };
      accounts.set(g.aiAccountId, account);
    }
    views.push(connectionView(g, account, now));
  }
  return views;
}

/** One page of the caller's workspace's Connections, newest first; `after` is a grant id. */
export async function listConnections(deps: Pick<CoreDeps, "clock">, stores: Stores, caller: Pick<AccessCaller, "principal">, p: { after: string | null; limit: number }): Promise<{ items: ConnectionView[]; nextAfter: string | null }> {
  const rows = await stores.oauth.listGrants({ workspaceId: caller.principal.workspace.id, after: p.after, limit: p.limit });
  const page = rows.slice(0, p.limit);
  const last = page[page.length - 1];
  return { items: await connectionViews(stores, page, deps.clock.now()), nextAfter: rows.length > p.limit && last ? last.id : null };
}

/**
 * Disconnects a Connection in the caller's transaction: revokes the grant (cause `disconnected`),
 * its access credentials and every refresh token, with the audit rows. The caller tells the
 * credential cache to forget the returned credentials after commit (effective on the next request).
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT (already revoked).
 */
export async function disconnectConnection(deps: Pick<CoreDeps, "clock" | "ids">, stores: Stores, caller: AccessCaller, connectionId: string): Promise<{ view: ConnectionView; credentials: Credential[] }> {
  const workspaceId = caller.principal.workspace.id;
  const grant = isUlid(connectionId) ? await stores.oauth.findGrant({ workspaceId, grantId: connectionId }) : null;
  if (grant === null) throw notFound("Connection");
  const revoked = await revokeGrantInTx(deps, stores, { workspaceId, grantId: grant.id, cause: "disconnected", actor: caller });
  if (revoked === null) throw new DomainError("SVC_RESOURCE_CONFLICT", "This connection is already revoked.", { state: "revoked" });
  const [view] = await connectionViews(stores, [revoked.grant], deps.clock.now());
  return { view: view as ConnectionView, credentials: revoked.credentials };
}
