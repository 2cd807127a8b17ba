import { DEFAULT_MAX_DELIVERIES } from "../access/bootstrap-workspace.ts";
import type { Person, Workspace } from "../access/model.ts";
import type { CoreDeps } from "../deps.ts";
import { DomainError } from "../errors.ts";
import type { OidcProvider } from "../ports.ts";
import { parseEmail } from "../people/email.ts";
import { personAuditEntry } from "../people/people-audit.ts";
import type { RequestOrigin } from "../people/people-settings.ts";
import { requirePeople } from "../people/require-people.ts";
import { openSession, type OpenedSession } from "../people/sessions.ts";
import { SIGN_UP_PLAN } from "../people/sign-up.ts";
import { openOidcAttempt, sealOidcAttempt } from "./oidc-attempt-cookie.ts";
import { parseReturnTo } from "./return-to.ts";

/** The callback path of OIDC sign-in, on the service's own origin. */
export const OIDC_CALLBACK_PATH = "/v1/auth/oidc/callback";

/** The identity provider of the deps, or 404 when the service has none configured. */
export function requireOidc(deps: Pick<CoreDeps, "oidc">): OidcProvider {
  if (deps.oidc === undefined) throw new DomainError("SVC_RESOURCE_NOT_FOUND", "Sign-in with an identity provider is not configured on this service.", { resource: "oidc_provider" });
  return deps.oidc;
}

/** A provider call; an unreachable provider becomes 503 SVC_SERVICE_UNAVAILABLE (the cause kept). */
async function reach<T>(call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw new DomainError("SVC_SERVICE_UNAVAILABLE", "The identity provider could not be reached; try again later.", undefined, { cause: error });
  }
}

function baseOf(deps: Pick<CoreDeps, "publicBaseUrl">): string {
  return deps.publicBaseUrl ?? "http://127.0.0.1:8080";
}

/**
 * GET /v1/auth/oidc/start: a fresh authorization request to the identity provider (code flow,
 * PKCE S256, state, nonce) whose redirect URI is PUBLIC_BASE_URL + /v1/auth/oidc/callback, and
 * the sealed attempt for the browser's cookie (ten minutes).
 * @throws DomainError SVC_MALFORMED_REQUEST (details.field "return_to"), SVC_RESOURCE_NOT_FOUND
 *   (no provider configured); rejects when the provider cannot be reached (503 at the edge).
 */
export async function startOidcSignIn(deps: Pick<CoreDeps, "oidc" | "publicBaseUrl" | "secrets" | "clock">, input: { returnTo: string | undefined }): Promise<{ redirectTo: string; attemptCookie: string }> {
  const provider = requireOidc(deps);
  const returnTo = parseReturnTo(input.returnTo, baseOf(deps));
  const { url, attempt } = await reach(() => provider.authorizationRequest({ redirectUri: baseOf(deps) + OIDC_CALLBACK_PATH }));
  return { redirectTo: url, attemptCookie: sealOidcAttempt(deps.secrets, { attempt, returnTo, startedAt: deps.clock.now() }) };
}

/** What a completed OIDC sign-in gave: where to send the browser and the session it opened (pending MFA when the person has MFA on). */
export interface OidcSignedIn extends OpenedSession {
  person: Person;
  /** The absolute address to redirect to (PUBLIC_BASE_URL + the return path). */
  redirectTo: string;
  /** True when the person was signed up by this sign-in. */
  signedUp: boolean;
}

function refused(reason: string): DomainError {
  return new DomainError("SVC_UNAUTHENTICATED", "The sign-in with the identity provider did not succeed; start again.", { reason });
}

/**
 * GET /v1/auth/oidc/callback (DESIGN §2b): completes the attempt of the browser's cookie with the
 * callback's query, and signs in the person whose email the provider verified, or signs one up
 * (a new workspace on the free plan, the person its owner, no password) as sign-up would: closed
 * sign-up and blocked countries refuse it. A person with MFA on gets a pending-MFA session: the
 * sign-in completes at POST /v1/auth/mfa/verify. Audited in the transaction that opens the
 * session (`person.signed_in` with `via: "oidc"`; `workspace.created` and `person.signed_up` for
 * a new person).
 * @throws DomainError SVC_UNAUTHENTICATED (details.reason: no or expired attempt, a refused
 *   callback, no verified email), SVC_TIER_INSUFFICIENT (sign-up closed), SVC_GEOFENCE_BLOCKED,
 *   SVC_RESOURCE_NOT_FOUND (no provider); rejects when the provider cannot be reached.
 */
export async function finishOidcSignIn(
  deps: Pick<CoreDeps, "oidc" | "publicBaseUrl" | "secrets" | "clock" | "ids" | "stores" | "tx" | "people">,
  input: { query: string; attemptCookie: string | null },
  ctx: { origin: RequestOrigin; requestId: string | null },
): Promise<OidcSignedIn> {
  const provider = requireOidc(deps);
  const people = requirePeople(deps);
  const sealed = input.attemptCookie === null ? null : openOidcAttempt(deps.secrets, input.attemptCookie, deps.clock.now());
  if (sealed === null) throw refused("no_attempt");
  const redirectUri = baseOf(deps) + OIDC_CALLBACK_PATH;
  const result = await reach(() => provider.completeAuthorization({ callbackUrl: `${redirectUri}${input.query.startsWith("?") ? input.query : `?${input.query}`}`, redirectUri, attempt: sealed.attempt }));
  if (result.kind === "refused") throw refused(result.reason);
  const { identity } = result;
  if (identity.email === null || !identity.emailVerified) throw refused("email_not_verified");
  let email: string;
  try {
    email = parseEmail(identity.email);
  } catch {
    throw refused("email_not_usable");
  }
  const redirectTo = baseOf(deps) + sealed.returnTo;
  const settings = people.settings;
  const existing = await deps.stores.people.findByEmail({ email });
  if (existing === null) {
    if (settings.signup === "closed") throw new DomainError("SVC_TIER_INSUFFICIENT", "Sign-up is closed on this service; ask an owner for an invitation.", { reason: "signup_closed" });
    if (ctx.origin.country !== null && settings.blockedCountries.includes(ctx.origin.country)) throw new DomainError("SVC_GEOFENCE_BLOCKED", "Sign-up is not offered in your country.");
  }
  return deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    let person = existing === null ? null : await stores.people.findById({ workspaceId: existing.workspaceId, personId: existing.id });
    let signedUp = false;
    const audit = (workspaceId: string, actor: string, activity: string, subjectType: "person" | "workspace", subjectId: string, details: Record<string, unknown>) =>
      stores.audit.append({ entry: personAuditEntry(deps, { workspaceId, occurredAt: now, activity, subjectType, subjectId, actorPersonId: actor, requestId: ctx.requestId, details }) });
    if (person === null) {
      const displayName = identity.name?.trim().slice(0, 200) || null;
      const workspace: Workspace = { id: deps.ids.next(), name: `${displayName ?? email.split("@")[0] ?? email}'s workspace`.slice(0, 200), state: "active", maxDeliveries: DEFAULT_MAX_DELIVERIES, createdAt: now };
      person = { id: deps.ids.next(), workspaceId: workspace.id, email, displayName, role: "owner", passwordHash: null, mfaEnabledAt: null, createdAt: now };
      const created = await stores.workspaces.create({ workspace, owner: person });
      // A sign-up of the same email won the race: start again, and it signs in.
      if (created.kind === "email_taken") throw refused("concurrent_sign_up");
      await stores.plans.setWorkspacePlan({ plan: { workspaceId: workspace.id, plan: SIGN_UP_PLAN, overrides: {} }, now });
      await audit(workspace.id, person.id, "workspace.created", "workspace", workspace.id, { name: workspace.name, owner_person_id: person.id, plan: SIGN_UP_PLAN, via: "oidc" });
      await audit(workspace.id, person.id, "person.signed_up", "person", person.id, { role: person.role, via: "oidc" });
      signedUp = true;
    }
    const mfa = person.mfaEnabledAt !== null;
    const opened = await openSession(deps, stores, { workspaceId: person.workspaceId, personId: person.id, stage: mfa ? "pending_mfa" : "active", withMfa: false, now, settings });
    await audit(person.workspaceId, person.id, mfa ? "person.oidc_verified" : "person.signed_in", "person", person.id, { session_id: opened.session.id, mfa: false, via: "oidc", issuer: identity.issuer });
    return { ...opened, person, redirectTo, signedUp };
  });
}
