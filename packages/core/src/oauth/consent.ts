import { accessAuditEntry } from "../access/access-audit.ts";
import { createAiAccount } from "../access/ai-accounts.ts";
import { hashToken, constantTimeEqual } from "../access/token.ts";
import type { AiAccount, PersonPrincipal, Role } from "../access/model.ts";
import type { CoreDeps } from "../deps.ts";
import { DomainError, malformed, notFound } from "../errors.ts";
import { isUlid } from "../ids.ts";
import { administers } from "../people/person-access.ts";
import { personWorkspaceRefusal } from "../people/step-up.ts";
import { checkAccountCap } from "../plans/plan-caps.ts";
import { issueAuthorizationCode } from "./authorization-codes.ts";
import { authorizationRedirect, type AuthorizationRequest } from "./authorization-requests.ts";
import type { OAuthEndpoints } from "./endpoints.ts";

/**
 * Whether a person of this role may connect an MCP client (approve an authorization request).
 * Approving issues a credential of an AI account, so it takes the roles that may issue
 * credentials: owner and admin. A viewer reads only (DESIGN §2b).
 */
export function mayApproveConnections(role: Role): boolean {
  return administers(role);
}

/** The AI account an approval acts as: an existing one of the workspace, or a new one created in the same click. */
export type ConsentAccountChoice = { kind: "existing"; aiAccountId: string } | { kind: "new"; friendlyName: string };

/**
 * The consent form's anti-forgery token: a keyed hash (the server pepper) of the person's session
 * and of everything the page showed (client, redirect URI, scopes, challenge, state, resource).
 * Only the page rendered for this session and this request carries it, so a forged or altered
 * consent POST is refused even if it passed the origin check.
 */
export function consentToken(deps: Pick<CoreDeps, "secrets">, principal: PersonPrincipal, request: AuthorizationRequest): string {
  const bound = JSON.stringify(["oauth-consent", principal.session.id, request.client.id, request.redirectUri, request.scopes, request.codeChallenge, request.state, request.resource]);
  return hashToken(deps.secrets.pepper, bound);
}

/**
 * Checks the consent form's token (`consentToken`, constant time).
 * @throws DomainError SVC_CSRF_REJECTED
 */
export function checkConsentToken(deps: Pick<CoreDeps, "secrets">, principal: PersonPrincipal, request: AuthorizationRequest, presented: string): void {
  if (!constantTimeEqual(consentToken(deps, principal, request), presented)) throw new DomainError("SVC_CSRF_REJECTED", "The consent form is stale or was not rendered for this session: open the authorization link again.");
}

/**
 * Approves an authorization request for a signed-in person (DESIGN §2b): the person may approve
 * (`mayApproveConnections`), their workspace is active, the AI account is an active one of the
 * workspace or is created now (within the plan's cap); issues the single-use authorization code
 * (10 minutes) with an `oauth_authorization.approved` audit row, all in one transaction. Returns
 * the address to send the browser to: the redirect URI with `code`, `state` and `iss`. `scopes`,
 * when given (the toolsets the person chose, DESIGN §2c), narrows the request's: the grant gets
 * those of the request's scopes it names.
 * @throws DomainError SVC_TIER_INSUFFICIENT (a viewer), SVC_FROZEN / SVC_WORKSPACE_CLOSED,
 *   SVC_RESOURCE_NOT_FOUND (no such AI account), SVC_RESOURCE_CONFLICT (the account is not active,
 *   or the new name is taken), SVC_MALFORMED_REQUEST (the new name; `scopes` leaving none,
 *   details.field `toolsets`), SVC_PLAN_LIMIT_EXCEEDED.
 */
export async function approveAuthorization(
  deps: Pick<CoreDeps, "tx" | "clock" | "ids" | "secrets" | "stores">,
  endpoints: Pick<OAuthEndpoints, "issuer">,
  p: { principal: PersonPrincipal; request: AuthorizationRequest; account: ConsentAccountChoice; requestId: string; scopes?: readonly string[] },
): Promise<{ location: string; aiAccount: AiAccount }> {
  const { principal, request } = p;
  if (!mayApproveConnections(principal.person.role)) throw new DomainError("SVC_TIER_INSUFFICIENT", "Only an owner or admin may connect an application: it gets a credential of an AI account.", { role: principal.person.role });
  const inactive = personWorkspaceRefusal(principal, "approve_oauth_authorization");
  if (inactive !== null) throw inactive;
  const scopes = p.scopes === undefined ? request.scopes : request.scopes.filter((s) => p.scopes!.includes(s));
  if (scopes.length === 0) throw malformed("Choose at least one toolset for the application.", { field: "toolsets" });
  const workspaceId = principal.workspace.id;
  const caller = { principal, requestId: p.requestId };
  return deps.tx.run(async (stores) => {
    let account: AiAccount;
    if (p.account.kind === "new") {
      await checkAccountCap(deps, stores, workspaceId);
      account = await createAiAccount(deps, stores, caller, { friendlyName: p.account.friendlyName });
    } else {
      const found = isUlid(p.account.aiAccountId) ? await stores.accounts.findById({ workspaceId, accountId: p.account.aiAccountId }) : null;
      if (found === null) throw notFound("AI account");
      if (found.state !== "active") throw new DomainError("SVC_RESOURCE_CONFLICT", `The AI account is ${found.state}; an application can only act as an active one.`, { state: found.state });
      account = found;
    }
    const { code } = await issueAuthorizationCode(deps, stores, {
      clientId: request.client.id,
      workspaceId,
      personId: principal.person.id,
      aiAccountId: account.id,
      scopes,
      redirectUri: request.redirectUri,
      codeChallenge: request.codeChallenge,
      resource: request.resource,
    });
    await stores.audit.append({
      entry: accessAuditEntry(deps, caller, {
        workspaceId,
        occurredAt: deps.clock.now(),
        activity: "oauth_authorization.approved",
        subjectType: "ai_account",
        subjectId: account.id,
        details: { client_id: request.client.id, client_name: request.client.name, redirect_uri: request.redirectUri, scopes },
      }),
    });
    return { location: authorizationRedirect(endpoints, request.redirectUri, { code, state: request.state }), aiAccount: account };
  });
}

/** Where a denied request goes: the redirect URI with `error=access_denied`, the state and `iss` (RFC 6749 §4.1.2.1). */
export function deniedAuthorizationRedirect(endpoints: Pick<OAuthEndpoints, "issuer">, request: AuthorizationRequest): string {
  return authorizationRedirect(endpoints, request.redirectUri, { error: "access_denied", error_description: "The person denied the request.", state: request.state });
}

/**
 * The AI account name a consent page proposes when the workspace has none to pick: the client's
 * self-asserted name made a valid friendly name (`claude-code`), else `mcp-client`.
 */
export function proposedAccountName(clientName: string | null): string {
  const slug = (clientName ?? "")
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, "-")
    .replace(/^[^a-z0-9]+/, "")
    .slice(0, 63)
    .replace(/[-._]+$/, "");
  return slug === "" ? "mcp-client" : slug;
}
