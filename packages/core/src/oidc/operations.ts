import { Type } from "@sinclair/typebox";
import type { PersonPrincipal } from "../access/model.ts";
import { definePeopleOperation } from "../operation.ts";
import { sessionUnauthenticated } from "../people/authenticate-session.ts";
import { originOf, sessionOrNull, started } from "../people/auth-operations.ts";
import { OIDC_ATTEMPT_LIFETIME_MS } from "./oidc-attempt-cookie.ts";
import { finishOidcSignIn, listLinkedIdentities, startOidcSignIn } from "./oidc-sign-in.ts";
import { RETURN_TO_MAX_LENGTH } from "./return-to.ts";

// The OIDC area of the catalogue (DESIGN §2b, §2c): whether a browser may sign in with an
// identity provider, and the sign-in itself, a pair of top-level browser navigations (GET,
// answered with 302). The attempt travels in an HttpOnly SameSite=Lax cookie (a session intent),
// sent on the provider's redirect back, and so does the session cookie a linking attempt
// (`?link=1`, from the person's settings) needs at both ends. Never MCP tools.

export const getOidcProviderOp = definePeopleOperation({
  name: "get_oidc_provider",
  summary: "Whether sign-in with an identity provider is configured, and its label.",
  http: { method: "GET", path: "/v1/auth/oidc" },
  auth: { kind: "public" },
  mutates: false,
  input: Type.Object({}),
  output: Type.Object({ enabled: Type.Boolean({ description: "True when an identity provider is configured." }), label: Type.Optional(Type.String({ description: "The provider's label, for the sign-in button." })) }),
  successStatus: 200,
  async handler(deps) {
    return { body: deps.oidc === undefined ? { enabled: false } : { enabled: true, label: deps.oidc.label } };
  },
});

export const startOidcSignInOp = definePeopleOperation({
  name: "start_oidc_sign_in",
  summary: "Redirects (302) to the identity provider: authorization code flow with PKCE, state and nonce; return_to is a path of this service. With link=1 (a signed-in person's session), the identity signed in with at the provider is linked to that person instead.",
  http: { method: "GET", path: "/v1/auth/oidc/start", query: ["return_to", "link"] },
  auth: { kind: "public" },
  mutates: false,
  errors: [401],
  input: Type.Object({
    return_to: Type.Optional(Type.String({ maxLength: RETURN_TO_MAX_LENGTH, description: "Where to land after the sign-in: a path of this service (default /)." })),
    link: Type.Optional(Type.Literal("1", { description: "1: link the provider identity to the signed-in person (needs the session cookie) rather than sign in." })),
  }),
  output: Type.Null({ description: "No body: a redirect (Location) to the identity provider." }),
  successStatus: 302,
  async handler(deps, ctx, input) {
    let linkFor: PersonPrincipal | null = null;
    if (input.link === "1") {
      linkFor = await sessionOrNull(deps, ctx.sessionToken ?? null);
      if (linkFor === null) throw sessionUnauthenticated();
    }
    const begun = await startOidcSignIn(deps, { returnTo: input.return_to, linkFor });
    return { body: null, headers: { Location: begun.redirectTo }, session: { kind: "oidc_attempt", value: begun.attemptCookie, maxAgeSeconds: OIDC_ATTEMPT_LIFETIME_MS / 1000 } };
  },
});

export const finishOidcSignInOp = definePeopleOperation({
  name: "finish_oidc_sign_in",
  summary: "The identity provider's redirect back: signs in the person the identity is linked to, or signs up the verified email of a new one, and redirects (302) to return_to with a session; an email that has an account is 409 (link it from that person's settings). A linking attempt links the identity and redirects without a new session.",
  // The query is the provider's (code, state, iss, or an error): handed over whole, as the callback URL.
  http: { method: "GET", path: "/v1/auth/oidc/callback", rawQuery: "query", endsOidcAttempt: true },
  auth: { kind: "public" },
  // It signs in, and may sign up.
  mutates: true,
  errors: [401, 403],
  input: Type.Object({ query: Type.String({ description: "The callback's whole query string, as the provider sent it." }) }),
  output: Type.Null({ description: "No body: a redirect (Location) to return_to." }),
  successStatus: 302,
  async handler(deps, ctx, input) {
    const session = await sessionOrNull(deps, ctx.sessionToken ?? null);
    const done = await finishOidcSignIn(deps, { query: input.query, attemptCookie: ctx.oidcAttemptToken ?? null, session }, { origin: originOf(ctx), requestId: ctx.requestId });
    return { body: null, headers: { Location: done.redirectTo }, ...(done.kind === "signed_in" ? { session: started(deps, done) } : {}) };
  },
});

export const listLinkedIdentitiesOp = definePeopleOperation({
  name: "list_linked_identities",
  summary: "The identities at the identity provider linked to the signed-in person (session), oldest first: each signs this person in.",
  http: { method: "GET", path: "/v1/me/identities" },
  auth: { kind: "person", roles: ["owner", "admin", "viewer"], closedWorkspaceAllowed: true },
  mutates: false,
  input: Type.Object({}),
  output: Type.Object({
    items: Type.Array(
      Type.Object({
        id: Type.String({ description: "ULID of the link." }),
        issuer: Type.String({ description: "The provider's issuer identifier." }),
        created_at: Type.String({ format: "date-time", description: "When the identity was linked." }),
      }),
    ),
  }),
  successStatus: 200,
  async handler(deps, ctx) {
    // authorizePersonOperation let only a person's session through.
    const identities = await listLinkedIdentities(deps, ctx.principal as PersonPrincipal);
    return { body: { items: identities.map((i) => ({ id: i.id, issuer: i.issuer, created_at: i.createdAt.toISOString() })) } };
  },
});

/** The OIDC area's catalogue entries. */
export const OIDC_OPERATIONS = [getOidcProviderOp, startOidcSignInOp, finishOidcSignInOp, listLinkedIdentitiesOp];
