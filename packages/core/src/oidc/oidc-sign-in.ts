import { DEFAULT_MAX_DELIVERIES } from "../access/bootstrap-workspace.ts";
import type { Person, PersonPrincipal, Workspace } from "../access/model.ts";
import { requirePublicBaseUrl, type CoreDeps } from "../deps.ts";
import { DomainError } from "../errors.ts";
import type { OidcProvider } from "../ports.ts";
import { parseEmail } from "../people/email.ts";
import { personAuditEntry } from "../people/people-audit.ts";
import type { RequestOrigin } from "../people/people-settings.ts";
import { requirePeople } from "../people/require-people.ts";
import { openSession, type OpenedSession } from "../people/sessions.ts";
import { refuseSignUpFrom, SIGN_UP_PLAN } from "../people/sign-up.ts";
import type { Stores } from "../ports.ts";
import { openOidcAttempt, sealOidcAttempt } from "./oidc-attempt-cookie.ts";
import type { LinkedIdentity, OidcIdentity } from "./oidc-identity.ts";
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
  return requirePublicBaseUrl(deps);
}

/**
 * GET /v1/auth/oidc/start: a fresh authorization request to the identity provider (code flow,
 * PKCE S256, state, nonce) whose redirect URI is PUBLIC_BASE_URL + /v1/auth/oidc/callback, and
 * the sealed attempt for the browser's cookie (ten minutes). With `linkFor` (`?link=1`, a
 * signed-in person's session), the attempt links the identity the person signs in with at the
 * provider to that person instead of signing in (DESIGN §2c).
 * @throws DomainError SVC_MALFORMED_REQUEST (details.field "return_to"), SVC_RESOURCE_NOT_FOUND
 *   (no provider configured); rejects when the provider cannot be reached (503 at the edge).
 */
export async function startOidcSignIn(deps: Pick<CoreDeps, "oidc" | "publicBaseUrl" | "secrets" | "clock">, input: { returnTo: string | undefined; linkFor?: PersonPrincipal | null }): Promise<{ redirectTo: string; attemptCookie: string }> {
  const provider = requireOidc(deps);
  const returnTo = parseReturnTo(input.returnTo, baseOf(deps));
  const { url, attempt } = await reach(() => provider.authorizationRequest({ redirectUri: baseOf(deps) + OIDC_CALLBACK_PATH }));
  const linkFor = input.linkFor == null ? null : { workspaceId: input.linkFor.workspace.id, personId: input.linkFor.person.id };
  return { redirectTo: url, attemptCookie: sealOidcAttempt(deps.secrets, { attempt, returnTo, startedAt: deps.clock.now(), linkFor }) };
}

/** What a completed OIDC sign-in gave: where to send the browser and the session it opened (pending MFA when the person has MFA on). */
export interface OidcSignedIn extends OpenedSession {
  kind: "signed_in";
  person: Person;
  /** The absolute address to redirect to (PUBLIC_BASE_URL + the return path). */
  redirectTo: string;
  /** True when the person was signed up by this sign-in. */
  signedUp: boolean;
}

/** What a completed linking attempt gave: the identity now linked to the signed-in person (no new session). */
export interface OidcLinked {
  kind: "linked";
  person: Person;
  identity: LinkedIdentity;
  /** The absolute address to redirect to (PUBLIC_BASE_URL + the return path). */
  redirectTo: string;
}

function refused(reason: string): DomainError {
  return new DomainError("SVC_UNAUTHENTICATED", "The sign-in with the identity provider did not succeed; start again.", { reason });
}

/**
 * GET /v1/auth/oidc/callback (DESIGN §2b, §2c): completes the attempt of the browser's cookie
 * with the callback's query. The provider's identity is its issuer and subject:
 *
 * - A linking attempt (started with `?link=1`) links that identity to the person who started it,
 *   who must still be signed in in this browser (`session`), audited `person.identity_linked`.
 *   An identity linked to someone else is 409 SVC_RESOURCE_CONFLICT (`details.reason:
 *   "identity_linked_elsewhere"`); linked to this person already, nothing changes.
 * - Otherwise an identity linked to a person signs that person in (whatever email the provider
 *   reports now). A person with MFA on gets a pending-MFA session: the sign-in completes at POST
 *   /v1/auth/mfa/verify. Audited `person.signed_in` with `via: "oidc"`.
 * - An identity linked to nobody signs up the email the provider verified (a new workspace on
 *   the free plan, the person its owner, no password, the identity linked), as sign-up would:
 *   closed sign-up and blocked countries refuse it. An email that belongs to a person already is
 *   never signed into: 409 SVC_RESOURCE_CONFLICT with `details.reason: "link_from_settings"`
 *   (that person signs in as they do and links the identity from their settings).
 * @throws DomainError SVC_UNAUTHENTICATED (details.reason: no or expired attempt, a refused
 *   callback, no verified email, a linking attempt without its person's session),
 *   SVC_RESOURCE_CONFLICT (details.reason), SVC_TIER_INSUFFICIENT (sign-up closed),
 *   SVC_GEOFENCE_BLOCKED, SVC_RESOURCE_NOT_FOUND (no provider); rejects when the provider cannot
 *   be reached.
 */
export async function finishOidcSignIn(
  deps: Pick<CoreDeps, "oidc" | "publicBaseUrl" | "secrets" | "clock" | "ids" | "stores" | "tx" | "people">,
  input: { query: string; attemptCookie: string | null; session: PersonPrincipal | null },
  ctx: { origin: RequestOrigin; requestId: string | null },
): Promise<OidcSignedIn | OidcLinked> {
  const provider = requireOidc(deps);
  const people = requirePeople(deps);
  const sealed = input.attemptCookie === null ? null : openOidcAttempt(deps.secrets, input.attemptCookie, deps.clock.now());
  if (sealed === null) throw refused("no_attempt");
  const redirectUri = baseOf(deps) + OIDC_CALLBACK_PATH;
  const result = await reach(() => provider.completeAuthorization({ callbackUrl: `${redirectUri}${input.query.startsWith("?") ? input.query : `?${input.query}`}`, redirectUri, attempt: sealed.attempt }));
  if (result.kind === "refused") throw refused(result.reason);
  const { identity } = result;
  const redirectTo = baseOf(deps) + sealed.returnTo;
  if (sealed.linkFor !== null) {
    const session = input.session;
    if (session === null || session.person.id !== sealed.linkFor.personId || session.workspace.id !== sealed.linkFor.workspaceId) throw refused("link_needs_session");
    return linkIdentity(deps, session.person, identity, redirectTo, ctx);
  }
  const settings = people.settings;
  const linked = await deps.stores.linkedIdentities.findBySubject({ issuer: identity.issuer, subject: identity.subject });
  if (linked !== null) {
    const person = await deps.stores.people.findById({ workspaceId: linked.workspaceId, personId: linked.personId });
    if (person === null) throw refused("person_gone");
    return deps.tx.run(async (stores) => ({ kind: "signed_in", ...(await openOidcSession(deps, stores, person, identity, ctx)), person, redirectTo, signedUp: false }));
  }
  if (identity.email === null || !identity.emailVerified) throw refused("email_not_verified");
  let email: string;
  try {
    email = parseEmail(identity.email);
  } catch {
    throw refused("email_not_usable");
  }
  if ((await deps.stores.people.findByEmail({ email })) !== null) throw linkFromSettings();
  refuseSignUpFrom(settings, ctx.origin);
  return deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const displayName = identity.name?.trim().slice(0, 200) || null;
    const workspace: Workspace = { id: deps.ids.next(), name: `${displayName ?? email.split("@")[0] ?? email}'s workspace`.slice(0, 200), state: "active", maxDeliveries: DEFAULT_MAX_DELIVERIES, createdAt: now };
    const person: Person = { id: deps.ids.next(), workspaceId: workspace.id, email, displayName, role: "owner", passwordHash: null, mfaEnabledAt: null, createdAt: now };
    const created = await stores.workspaces.create({ workspace, owner: person });
    // A sign-up of the same email won the race: start again (a person of that email is then signed into only through a linked identity).
    if (created.kind === "email_taken") throw refused("concurrent_sign_up");
    const record: LinkedIdentity = { id: deps.ids.next(), workspaceId: workspace.id, personId: person.id, issuer: identity.issuer, subject: identity.subject, createdAt: now };
    if ((await stores.linkedIdentities.link({ identity: record })).kind !== "linked") throw refused("concurrent_sign_up");
    await stores.plans.setWorkspacePlan({ plan: { workspaceId: workspace.id, plan: SIGN_UP_PLAN, overrides: {} }, now });
    const audit = auditOf(deps, stores, person, now, ctx.requestId);
    await audit("workspace.created", "workspace", workspace.id, { name: workspace.name, owner_person_id: person.id, plan: SIGN_UP_PLAN, via: "oidc" });
    await audit("person.signed_up", "person", person.id, { role: person.role, via: "oidc" });
    await audit("person.identity_linked", "person", person.id, { identity_id: record.id, issuer: record.issuer, subject: record.subject, via: "sign_up" });
    return { kind: "signed_in", ...(await openOidcSession(deps, stores, person, identity, ctx)), person, redirectTo, signedUp: true };
  });
}

function linkFromSettings(): DomainError {
  return new DomainError("SVC_RESOURCE_CONFLICT", "This email address has an account: sign in as you usually do, then link this identity provider from your settings.", { reason: "link_from_settings" });
}

function auditOf(deps: Pick<CoreDeps, "ids">, stores: Stores, person: Person, now: Date, requestId: string | null) {
  return (activity: string, subjectType: "person" | "workspace", subjectId: string, details: Record<string, unknown>) =>
    stores.audit.append({ entry: personAuditEntry(deps, { workspaceId: person.workspaceId, occurredAt: now, activity, subjectType, subjectId, actorPersonId: person.id, requestId, details }) });
}

/** Opens the session of an OIDC sign-in in the caller's transaction: pending MFA when the person has MFA on; audited. */
async function openOidcSession(deps: Pick<CoreDeps, "ids" | "secrets" | "clock" | "people">, stores: Stores, person: Person, identity: OidcIdentity, ctx: { requestId: string | null }): Promise<OpenedSession> {
  const now = deps.clock.now();
  const mfa = person.mfaEnabledAt !== null;
  const opened = await openSession(deps, stores, { workspaceId: person.workspaceId, personId: person.id, stage: mfa ? "pending_mfa" : "active", withMfa: false, now, settings: requirePeople(deps).settings });
  await auditOf(deps, stores, person, now, ctx.requestId)(mfa ? "person.oidc_verified" : "person.signed_in", "person", person.id, { session_id: opened.session.id, mfa: false, via: "oidc", issuer: identity.issuer });
  return opened;
}

/** Links `identity` to `person` (a linking attempt), audited; idempotent for this person, 409 for another. */
async function linkIdentity(deps: Pick<CoreDeps, "tx" | "clock" | "ids">, person: Person, identity: OidcIdentity, redirectTo: string, ctx: { requestId: string | null }): Promise<OidcLinked> {
  return deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const record: LinkedIdentity = { id: deps.ids.next(), workspaceId: person.workspaceId, personId: person.id, issuer: identity.issuer, subject: identity.subject, createdAt: now };
    const linked = await stores.linkedIdentities.link({ identity: record });
    if (linked.kind === "already_linked") {
      if (linked.identity.workspaceId === person.workspaceId && linked.identity.personId === person.id) return { kind: "linked", person, identity: linked.identity, redirectTo };
      throw new DomainError("SVC_RESOURCE_CONFLICT", "This identity at the provider is linked to another account.", { reason: "identity_linked_elsewhere" });
    }
    await auditOf(deps, stores, person, now, ctx.requestId)("person.identity_linked", "person", person.id, { identity_id: record.id, issuer: record.issuer, subject: record.subject, via: "settings" });
    return { kind: "linked", person, identity: record, redirectTo };
  });
}

/** The identities linked to the signed-in person (the settings page), oldest first. */
export async function listLinkedIdentities(deps: Pick<CoreDeps, "stores">, principal: PersonPrincipal): Promise<LinkedIdentity[]> {
  return deps.stores.linkedIdentities.listOfPerson({ workspaceId: principal.workspace.id, personId: principal.person.id });
}
