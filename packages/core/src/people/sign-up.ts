import type { Person, Workspace } from "../access/model.ts";
import type { CoreDeps } from "../deps.ts";
import { DomainError, malformed } from "../errors.ts";
import { DEFAULT_MAX_DELIVERIES } from "../access/bootstrap-workspace.ts";
import { limitAnonymousRequest } from "../rate-limits/anonymous-limits.ts";
import { parseEmail } from "./email.ts";
import { checkPassword } from "./password-rules.ts";
import { personAuditEntry } from "./people-audit.ts";
import type { PeopleConfig, RequestOrigin } from "./people-settings.ts";
import { openSession, type OpenedSession } from "./sessions.ts";
import { requirePeople } from "./require-people.ts";

/** POST /v1/auth/sign-up's body. */
export interface SignUpInput {
  email: string;
  password: string;
  workspace_name: string;
  display_name?: string;
}

/** What sign-up created: the owner, the workspace and the owner's first session. */
export interface SignUpResult extends OpenedSession {
  person: Person;
  workspace: Workspace;
}

/** The plan of a workspace made by sign-up (DESIGN §2b). */
export const SIGN_UP_PLAN = "free";

/** A trimmed display name of 1 to 200 characters, or null when absent. */
export function parseDisplayName(value: string | undefined): string | null {
  if (value === undefined) return null;
  const name = value.trim();
  if (name.length === 0 || name.length > 200) throw malformed("display_name must be 1 to 200 characters.", { field: "display_name" });
  return name;
}

/**
 * Signs a person up (DESIGN §2b): a new workspace on the free plan with the person as its owner
 * and their first session, in one transaction with the audit rows `workspace.created`,
 * `person.signed_up` and `person.signed_in`. Checked first, before anything is written: sign-up
 * open (SVC_SIGNUP), the country of the request not blocked, the client address's `sign_up`
 * limit (ANONYMOUS_LIMITS), the fields, the password rules.
 * @throws DomainError SVC_TIER_INSUFFICIENT (sign-up closed), SVC_GEOFENCE_BLOCKED, SVC_RATE_LIMITED,
 *   SVC_MALFORMED_REQUEST (details.field), SVC_RESOURCE_CONFLICT (the email has an account),
 *   SVC_SERVICE_UNAVAILABLE (no people configuration).
 */
export async function signUp(deps: Pick<CoreDeps, "stores" | "tx" | "clock" | "ids" | "secrets" | "people">, input: SignUpInput, ctx: { origin: RequestOrigin; requestId: string | null }): Promise<SignUpResult> {
  const people: PeopleConfig = requirePeople(deps);
  if (people.settings.signup === "closed") throw new DomainError("SVC_TIER_INSUFFICIENT", "Sign-up is closed on this service; ask an owner for an invitation.", { reason: "signup_closed" });
  if (ctx.origin.country !== null && people.settings.blockedCountries.includes(ctx.origin.country)) {
    throw new DomainError("SVC_GEOFENCE_BLOCKED", "Sign-up is not offered in your country.");
  }
  await limitAnonymousRequest(deps, "sign_up", ctx.origin.clientAddress);
  const email = parseEmail(input.email);
  const workspaceName = input.workspace_name.trim();
  if (workspaceName.length === 0 || workspaceName.length > 200) throw malformed("workspace_name must be 1 to 200 characters.", { field: "workspace_name" });
  const displayName = parseDisplayName(input.display_name);
  checkPassword(input.password, email);
  const passwordHash = await people.passwords.hash(input.password);

  return deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const workspace: Workspace = { id: deps.ids.next(), name: workspaceName, state: "active", maxDeliveries: DEFAULT_MAX_DELIVERIES, createdAt: now };
    const person: Person = { id: deps.ids.next(), workspaceId: workspace.id, email, displayName, role: "owner", passwordHash, mfaEnabledAt: null, createdAt: now };
    const created = await stores.workspaces.create({ workspace, owner: person });
    if (created.kind === "email_taken") throw new DomainError("SVC_RESOURCE_CONFLICT", "This email address already has an account.", { field: "email" });
    await stores.plans.setWorkspacePlan({ plan: { workspaceId: workspace.id, plan: SIGN_UP_PLAN, overrides: {} }, now });
    const opened = await openSession(deps, stores, { workspaceId: workspace.id, personId: person.id, stage: "active", withMfa: false, now, settings: people.settings });
    const audit = (activity: string, subjectType: "person" | "workspace", subjectId: string, details: Record<string, unknown>) =>
      stores.audit.append({ entry: personAuditEntry(deps, { workspaceId: workspace.id, occurredAt: now, activity, subjectType, subjectId, actorPersonId: person.id, requestId: ctx.requestId, details }) });
    await audit("workspace.created", "workspace", workspace.id, { name: workspace.name, owner_person_id: person.id, plan: SIGN_UP_PLAN, via: "sign_up" });
    await audit("person.signed_up", "person", person.id, { role: person.role });
    await audit("person.signed_in", "person", person.id, { session_id: opened.session.id, mfa: false });
    return { person, workspace, ...opened };
  });
}
