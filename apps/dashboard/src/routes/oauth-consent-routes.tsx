/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import {
  approveAuthorization,
  AUTHORIZATION_PARAMS,
  authenticateSession,
  checkAuthorizationRequest,
  checkConsentToken,
  consentToken,
  deniedAuthorizationRedirect,
  isDomainError,
  listAiAccounts,
  malformed,
  mayApproveConnections,
  oauthEndpoints,
  proposedAccountName,
  redirectHost,
  requirePublicBaseUrl,
  scopesForToolsets,
  toolsetsOfScopes,
  TOOLSETS,
  type AuthorizationRequest,
  type ParamValues,
  type PersonPrincipal,
} from "@agentq/core";
import { readCookie, type SessionEdge } from "@agentq/http";
import type { Context, Hono } from "hono";
import type { DashboardEnv } from "../dashboard-env.ts";
import { readForm, type FormInput } from "../form-input.ts";
import { refusalOf, viewerOf, type PageKit } from "../page-kit.tsx";
import { ConsentPage } from "../pages/consent-page.tsx";
import { renderPage } from "../render-page.tsx";
import { consentCsp } from "../security-headers.ts";

/** The path of the authorization endpoint (RFC 6749 §3.1), served by the dashboard: it is a page a person answers. */
export const AUTHORIZE_PATH = "/oauth/authorize";

/** The most AI accounts the consent page offers to pick from (the rest: name a new one, or manage accounts first). */
const ACCOUNTS_SHOWN = 100;

/**
 * GET /oauth/authorize and the consent decision (POST /oauth/authorize), DESIGN §2b. The request
 * is checked before anything else (`checkAuthorizationRequest`): a refusal before the redirect URI
 * is trusted is a page, never a redirect. Then a person must be signed in (else the sign-in page,
 * returning here). The decision is a POST of the page's form: the dashboard's origin check, then
 * the form's token (bound to the session and the request); approve issues the code through the
 * core, deny answers access_denied; both are a 303 to the client's redirect URI.
 */
export function registerOAuthConsentRoutes(app: Hono<DashboardEnv>, kit: PageKit, sessions: SessionEdge): void {
  const endpoints = oauthEndpoints(requirePublicBaseUrl(kit.deps));
  const seeOther = (location: string) => new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });

  /** The signed-in person, or null (no cookie, or a session that is not live). */
  const personOf = async (c: Context<DashboardEnv>): Promise<PersonPrincipal | null> => {
    const value = readCookie(c, sessions.cookies.session);
    if (value === null) return null;
    try {
      return await authenticateSession(kit.deps, value);
    } catch (err) {
      if (isDomainError(err) && err.code === "SVC_UNAUTHENTICATED") return null;
      throw err;
    }
  };
  /** The sign-in page, returning to the authorization request (`search`: its query, with the leading "?"). */
  const signInFirst = (search: string) => seeOther(`/sign-in?${new URLSearchParams({ return_to: `${AUTHORIZE_PATH}${search}` }).toString()}`);

  const consentPage = async (c: Context<DashboardEnv>, principal: PersonPrincipal, request: AuthorizationRequest, params: Record<string, string>, error?: ReturnType<typeof refusalOf>, chosenToolsets: readonly string[] | null = null) => {
    const { items } = await listAiAccounts(kit.deps.stores, { principal }, { state: "active", after: null, limit: ACCOUNTS_SHOWN });
    const view = {
      clientName: request.client.name,
      redirectHost: redirectHost(request.redirectUri),
      scopes: request.scopes,
      toolsets: toolsetsOfScopes(request.scopes).map((t) => ({ name: t, checked: chosenToolsets === null || chosenToolsets.includes(t) })),
      accounts: items.map((a) => ({ id: a.id, friendlyName: a.friendlyName })),
      proposedName: proposedAccountName(request.client.name),
      params,
      csrfToken: consentToken(kit.deps, principal, request),
      mayApprove: mayApproveConnections(principal.person.role),
      workspaceName: principal.workspace.name,
    };
    const res = await renderPage(c, kit.assets, { title: "Connect an application", viewer: viewerOf(principal), boosted: false }, <ConsentPage view={view} error={error?.error} />, error?.status ?? 200);
    res.headers.set("Content-Security-Policy", consentCsp(request.redirectUri));
    return res;
  };

  app.get(AUTHORIZE_PATH, async (c) => {
    const values: ParamValues = c.req.queries();
    const checked = await checkAuthorizationRequest(kit.deps, endpoints, values);
    // Thrown: the error page shows it (never a redirect to an untrusted URI).
    if (checked.kind === "show") throw checked.error;
    if (checked.kind === "redirect") return seeOther(checked.location);
    const params = singleParams(values);
    const principal = await personOf(c);
    if (principal === null) return signInFirst(new URL(c.req.url).search);
    c.set("principal", principal);
    return consentPage(c, principal, checked.request, params);
  });

  app.post(AUTHORIZE_PATH, async (c) => {
    const form = await readForm(c);
    const values = formParams(form);
    const checked = await checkAuthorizationRequest(kit.deps, endpoints, values);
    // Thrown: the error page shows it (never a redirect to an untrusted URI).
    if (checked.kind === "show") throw checked.error;
    if (checked.kind === "redirect") return seeOther(checked.location);
    const params = singleParams(values);
    const principal = await personOf(c);
    // The session ended while the page was open: sign in again, then see the page again.
    if (principal === null) return signInFirst(`?${new URLSearchParams(params).toString()}`);
    c.set("principal", principal);
    const request = checked.request;
    checkConsentToken(kit.deps, principal, request, form.raw("csrf_token"));
    if (form.text("decision") !== "approve") return seeOther(deniedAuthorizationRedirect(endpoints, request));
    const chosen = form.text("ai_account");
    // The toolsets the person left checked (DESIGN §2c): the grant keeps the scopes of those.
    const offered = toolsetsOfScopes(request.scopes);
    const toolsets = TOOLSETS.filter((t) => form.all("toolsets").includes(t));
    try {
      // Nothing is preselected (an easy accidental grant): approving without a choice is refused on the page.
      if (chosen === "") throw malformed("Choose the AI account the application acts as.", { field: "ai_account" });
      const approved = await approveAuthorization(kit.deps, endpoints, {
        principal,
        request,
        account: chosen === "new" ? { kind: "new", friendlyName: form.text("new_account_name") } : { kind: "existing", aiAccountId: chosen },
        requestId: c.get("requestId"),
        ...(offered.length === 0 ? {} : { scopes: scopesForToolsets(request.scopes, offered, toolsets) }),
      });
      return seeOther(approved.location);
    } catch (err) {
      // A refusal the person can act on (a taken name, no toolset left, a viewer's click) is shown on the page again.
      return consentPage(c, principal, request, params, refusalOf(err, c.get("requestId")), toolsets);
    }
  });
}

/** The authorization parameters of a posted consent form, each as the values it carried. */
function formParams(form: FormInput): ParamValues {
  const values: Record<string, string[]> = {};
  for (const name of AUTHORIZATION_PARAMS) {
    const all = form.all(name);
    if (all.length > 0) values[name] = all;
  }
  return values;
}

/** The authorization parameters present once, to carry through the consent form and the sign-in page. */
function singleParams(values: ParamValues): Record<string, string> {
  const params: Record<string, string> = {};
  for (const name of AUTHORIZATION_PARAMS) {
    const v = values[name];
    if (v !== undefined && v.length === 1 && v[0] !== undefined && v[0] !== "") params[name] = v[0];
  }
  return params;
}
