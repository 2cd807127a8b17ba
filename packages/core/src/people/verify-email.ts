import type { Person, Workspace } from "../access/model.ts";
import type { CoreDeps } from "../deps.ts";
import { DomainError } from "../errors.ts";
import { DEFAULT_MAX_DELIVERIES } from "../access/bootstrap-workspace.ts";
import { limitAnonymousRequest } from "../rate-limits/anonymous-limits.ts";
import { personAuditEntry } from "./people-audit.ts";
import { hashSignUpToken, isSignUpToken } from "./pending-sign-up.ts";
import type { RequestOrigin } from "./people-settings.ts";
import { openSession } from "./sessions.ts";
import { refuseSignUpFrom, SIGN_UP_PLAN, type SignUpResult } from "./sign-up.ts";
import { requirePeople } from "./require-people.ts";

/** The one refusal of a verification token that cannot be used: malformed, unknown, used or expired. */
function tokenRefused(): DomainError {
  return new DomainError("SVC_UNAUTHENTICATED", "The link is unknown, already used or expired; sign up again for a new one.", { field: "token" });
}

/**
 * POST /v1/auth/verify-email (DESIGN §2c): proves the email of a pending sign-up with its mailed
 * token and creates what it asked for, in one transaction: the pending sign-up taken (one
 * conditional write: of two concurrent verifications one wins), a workspace on the free plan
 * with the person as its owner (the password hashed at sign-up), the first session, and the
 * audit rows `workspace.created`, `person.signed_up` and `person.signed_in`. The operator's
 * settings are checked again (sign-up may have closed since, the request may come from a
 * blocked country), then the client address's `verify_email` limit (ANONYMOUS_LIMITS: tokens
 * cannot be guessed; the limit stops hammering), before the token is looked at.
 *
 * When the address got an account in the meantime (another pending sign-up of it verified
 * first, an invitation, OIDC), nothing is created and the sign-up stays pending until it
 * expires: 409 SVC_RESOURCE_CONFLICT with `details.reason: "email_registered"`.
 * @throws DomainError SVC_RATE_LIMITED (details.bucket "verify_email", Retry-After),
 *   SVC_UNAUTHENTICATED (details.field "token"), SVC_RESOURCE_CONFLICT, SVC_TIER_INSUFFICIENT
 *   (sign-up closed), SVC_GEOFENCE_BLOCKED, SVC_SERVICE_UNAVAILABLE.
 */
export async function verifyEmail(deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids" | "secrets" | "people">, input: { token: string }, ctx: { origin: RequestOrigin; requestId: string | null }): Promise<SignUpResult> {
  const people = requirePeople(deps);
  refuseSignUpFrom(people.settings, ctx.origin);
  await limitAnonymousRequest(deps, "verify_email", ctx.origin.clientAddress);
  if (!isSignUpToken(input.token)) throw tokenRefused();
  const tokenHash = hashSignUpToken(deps.secrets.pepper, input.token);
  return deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const pending = await stores.pendingSignUps.take({ tokenHash, now });
    if (pending === null) throw tokenRefused();
    const workspace: Workspace = { id: deps.ids.next(), name: pending.workspaceName, state: "active", maxDeliveries: DEFAULT_MAX_DELIVERIES, createdAt: now };
    const person: Person = { id: deps.ids.next(), workspaceId: workspace.id, email: pending.email, displayName: pending.displayName, role: "owner", passwordHash: pending.passwordHash, mfaEnabledAt: null, createdAt: now };
    const created = await stores.workspaces.create({ workspace, owner: person });
    // Throwing rolls the take back: the sign-up stays pending (and keeps answering this) until it expires.
    if (created.kind === "email_taken") throw new DomainError("SVC_RESOURCE_CONFLICT", "This email address has an account already; sign in, or reset its password.", { field: "email", reason: "email_registered" });
    await stores.plans.setWorkspacePlan({ plan: { workspaceId: workspace.id, plan: SIGN_UP_PLAN, overrides: {} }, now });
    const opened = await openSession(deps, stores, { workspaceId: workspace.id, personId: person.id, stage: "active", withMfa: false, now, settings: people.settings });
    const audit = (activity: string, subjectType: "person" | "workspace", subjectId: string, details: Record<string, unknown>) =>
      stores.audit.append({ entry: personAuditEntry(deps, { workspaceId: workspace.id, occurredAt: now, activity, subjectType, subjectId, actorPersonId: person.id, requestId: ctx.requestId, details }) });
    await audit("workspace.created", "workspace", workspace.id, { name: workspace.name, owner_person_id: person.id, plan: SIGN_UP_PLAN, via: "sign_up" });
    await audit("person.signed_up", "person", person.id, { role: person.role, email_verified: true, signed_up_at: pending.createdAt.toISOString() });
    await audit("person.signed_in", "person", person.id, { session_id: opened.session.id, mfa: false });
    return { person, workspace, ...opened };
  });
}
