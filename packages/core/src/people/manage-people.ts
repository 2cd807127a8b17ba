import { ROLES, type Person, type PersonPrincipal, type Principal, type Role } from "../access/model.ts";
import { requirePublicBaseUrl, type CoreDeps } from "../deps.ts";
import { DomainError, malformed, notFound } from "../errors.ts";
import { isMailAddress, type MailMessage } from "../mail/mail-message.ts";
import type { Stores } from "../ports.ts";
import { HOUR_MS } from "../time/duration.ts";
import { parseEmail } from "./email.ts";
import { issuePersonToken } from "./issue-person-token.ts";
import { personAuditEntry } from "./people-audit.ts";
import { invitationMail } from "./people-mails.ts";
import { personView, type PersonView } from "./people-views.ts";
import { administers } from "./person-access.ts";
import { PERSON_TOKENS_PER_HOUR } from "./person-tokens.ts";
import { personWorkspaceRefusal } from "./step-up.ts";

/** At most this many people in one workspace (owners, admins, viewers and pending invitations). */
export const MAX_PEOPLE_PER_WORKSPACE = 100;

/** A person as the people list shows them: the person, and whether they have set a password yet. */
export interface PeopleListItem extends PersonView {
  /** False until an invited person sets a password (and for people who only sign in with OIDC). */
  password_set: boolean;
}

/** An invitation just sent: when its link ends, and the mail to send after the commit. */
export interface IssuedInvitation {
  expiresAt: Date;
  mail: MailMessage;
}

/** The view of a person in the people list. */
export function peopleListItem(p: Person): PeopleListItem {
  return { ...personView(p), password_set: p.passwordHash !== null };
}

/**
 * The caller of a /v1/people route: a person's session whose role administers the workspace
 * (owner or admin), in a workspace that is neither frozen nor closed.
 * @throws DomainError SVC_TIER_INSUFFICIENT (a credential, or a viewer's session),
 *   SVC_WORKSPACE_CLOSED, SVC_FROZEN.
 */
export function requirePeopleAdmin(principal: Principal): PersonPrincipal {
  if (principal.kind !== "person") throw new DomainError("SVC_TIER_INSUFFICIENT", "The people of a workspace are managed from an owner's or admin's session, not with a credential.", { required: "session" });
  if (!administers(principal.person.role)) throw new DomainError("SVC_TIER_INSUFFICIENT", "Only owners and admins manage the people of the workspace.", { role: principal.person.role });
  const refusal = personWorkspaceRefusal(principal, "manage_people");
  if (refusal !== null) throw refusal;
  return principal;
}

/**
 * Whether `actor` may give `to` to a person who has `from` (`from` null: a new person). Owners
 * manage everyone; admins manage admins and viewers and may not grant, change or take away the
 * owner role.
 * @throws DomainError SVC_TIER_INSUFFICIENT (details.reason "owner_only").
 */
export function checkRoleChange(actor: Role, from: Role | null, to: Role | null): void {
  if (actor === "owner") return;
  if (from === "owner" || to === "owner") throw new DomainError("SVC_TIER_INSUFFICIENT", "Only an owner may grant, change or take away the owner role.", { reason: "owner_only" });
}

/** The role of a body, checked. */
export function parseRole(value: string): Role {
  if (!(ROLES as readonly string[]).includes(value)) throw malformed(`role must be one of ${ROLES.join(", ")}.`, { field: "role" });
  return value as Role;
}

function audit(deps: Pick<CoreDeps, "ids">, stores: Stores, actor: PersonPrincipal, p: { now: Date; activity: string; subjectId: string; requestId: string | null; details: Record<string, unknown> }): Promise<unknown> {
  return stores.audit.append({ entry: personAuditEntry(deps, { workspaceId: actor.workspace.id, occurredAt: p.now, activity: p.activity, subjectId: p.subjectId, actorPersonId: actor.person.id, requestId: p.requestId, details: p.details }) });
}

/** Issues an invitation token for `person` in the caller's transaction; the mail is for after the commit. */
async function issueInvitation(deps: Pick<CoreDeps, "ids" | "secrets" | "publicBaseUrl">, stores: Stores, actor: PersonPrincipal, person: Person, now: Date): Promise<IssuedInvitation & { tokenId: string }> {
  const { token, record } = await issuePersonToken(deps, stores, person, "invitation", now);
  const mail = invitationMail({
    to: person.email,
    publicBaseUrl: requirePublicBaseUrl(deps),
    token,
    workspaceName: actor.workspace.name,
    role: person.role,
    invitedBy: actor.person.displayName ?? actor.person.email,
  });
  return { expiresAt: record.expiresAt, mail, tokenId: record.id };
}

/** GET /v1/people: the workspace's people, oldest first. */
export async function listPeople(deps: Pick<CoreDeps, "stores">, principal: Principal): Promise<PeopleListItem[]> {
  const actor = requirePeopleAdmin(principal);
  return (await deps.stores.workspacePeople.list({ workspaceId: actor.workspace.id })).map(peopleListItem);
}

/**
 * POST /v1/people {email, role}: adds a person without a password and issues them a single-use
 * link to set one (72 hours), in one transaction with the audit row `person.invited`; the caller
 * mails it after the commit. Only an owner may invite an owner.
 * @throws DomainError SVC_TIER_INSUFFICIENT, SVC_MALFORMED_REQUEST (details.field "email" or
 *   "role"), SVC_RESOURCE_CONFLICT (the email has an account, in any workspace),
 *   SVC_PLAN_LIMIT_EXCEEDED (MAX_PEOPLE_PER_WORKSPACE), SVC_WORKSPACE_CLOSED, SVC_FROZEN.
 */
export async function invitePerson(deps: Pick<CoreDeps, "tx" | "clock" | "ids" | "secrets" | "publicBaseUrl">, principal: Principal, input: { email: string; role: string }, ctx: { requestId: string | null }): Promise<{ person: Person } & IssuedInvitation> {
  const actor = requirePeopleAdmin(principal);
  const email = parseEmail(input.email);
  if (!isMailAddress(email)) throw malformed("The email address cannot be mailed; use a plain address such as name@example.com.", { field: "email" });
  const role = parseRole(input.role);
  checkRoleChange(actor.person.role, null, role);
  return deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    if ((await stores.workspacePeople.count({ workspaceId: actor.workspace.id })) >= MAX_PEOPLE_PER_WORKSPACE) {
      throw new DomainError("SVC_PLAN_LIMIT_EXCEEDED", `A workspace has at most ${MAX_PEOPLE_PER_WORKSPACE} people.`, { limit: "people", max: MAX_PEOPLE_PER_WORKSPACE });
    }
    const person: Person = { id: deps.ids.next(), workspaceId: actor.workspace.id, email, displayName: null, role, passwordHash: null, mfaEnabledAt: null, createdAt: now };
    if ((await stores.people.insert({ person })).kind === "email_taken") throw new DomainError("SVC_RESOURCE_CONFLICT", "This email address already has an account.", { field: "email" });
    const invitation = await issueInvitation(deps, stores, actor, person, now);
    await audit(deps, stores, actor, { now, activity: "person.invited", subjectId: person.id, requestId: ctx.requestId, details: { role, token_id: invitation.tokenId, expires_at: invitation.expiresAt.toISOString() } });
    return { person, expiresAt: invitation.expiresAt, mail: invitation.mail };
  });
}

/**
 * POST /v1/people/{id}/invitation: a new set-password link for a person who has not set a
 * password yet; earlier links of the person stop working. At most three per person per hour.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT (details.reason
 *   "password_set"), SVC_RATE_LIMITED, SVC_TIER_INSUFFICIENT, SVC_WORKSPACE_CLOSED, SVC_FROZEN.
 */
export async function resendInvitation(deps: Pick<CoreDeps, "tx" | "clock" | "ids" | "secrets" | "publicBaseUrl">, principal: Principal, input: { personId: string }, ctx: { requestId: string | null }): Promise<IssuedInvitation> {
  const actor = requirePeopleAdmin(principal);
  return deps.tx.run(async (stores) => {
    const now = deps.clock.now();
    const person = await stores.people.findById({ workspaceId: actor.workspace.id, personId: input.personId });
    if (person === null) throw notFound("Person");
    checkRoleChange(actor.person.role, person.role, null);
    if (person.passwordHash !== null) throw new DomainError("SVC_RESOURCE_CONFLICT", "This person has set a password already; they can use password reset.", { reason: "password_set" });
    const recent = await stores.personTokens.countIssuedSince({ workspaceId: person.workspaceId, personId: person.id, purpose: "invitation", since: new Date(now.getTime() - HOUR_MS) });
    if (recent >= PERSON_TOKENS_PER_HOUR) throw new DomainError("SVC_RATE_LIMITED", `At most ${PERSON_TOKENS_PER_HOUR} invitations per person per hour.`, { limit: PERSON_TOKENS_PER_HOUR, window: "PT1H" }, { retryAfterSeconds: HOUR_MS / 1000 });
    await stores.personTokens.spendAllOfPerson({ workspaceId: person.workspaceId, personId: person.id, now });
    const invitation = await issueInvitation(deps, stores, actor, person, now);
    await audit(deps, stores, actor, { now, activity: "person.invitation_sent", subjectId: person.id, requestId: ctx.requestId, details: { token_id: invitation.tokenId, expires_at: invitation.expiresAt.toISOString() } });
    return { expiresAt: invitation.expiresAt, mail: invitation.mail };
  });
}

/**
 * PATCH /v1/people/{id} {role}: changes a person's role, audited as `person.role_changed`. The
 * workspace's last owner cannot be demoted; only an owner grants or takes away the owner role.
 * The same role again changes nothing and writes no audit row. The change applies to the
 * person's sessions from their next request.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT (details.reason
 *   "last_owner"), SVC_TIER_INSUFFICIENT, SVC_MALFORMED_REQUEST, SVC_WORKSPACE_CLOSED, SVC_FROZEN.
 */
export async function changePersonRole(deps: Pick<CoreDeps, "tx" | "clock" | "ids">, principal: Principal, input: { personId: string; role: string }, ctx: { requestId: string | null }): Promise<Person> {
  const actor = requirePeopleAdmin(principal);
  const role = parseRole(input.role);
  return deps.tx.run(async (stores) => {
    const current = await stores.people.findById({ workspaceId: actor.workspace.id, personId: input.personId });
    if (current === null) throw notFound("Person");
    checkRoleChange(actor.person.role, current.role, role);
    if (current.role === role) return current;
    const changed = await stores.workspacePeople.setRole({ workspaceId: actor.workspace.id, personId: current.id, role });
    if (changed.kind === "not_found") throw notFound("Person");
    if (changed.kind === "last_owner") throw lastOwner();
    // The role read under the workspace's lock decides (another change may have come between).
    checkRoleChange(actor.person.role, changed.before.role, role);
    await audit(deps, stores, actor, { now: deps.clock.now(), activity: "person.role_changed", subjectId: current.id, requestId: ctx.requestId, details: { from: changed.before.role, to: role } });
    return changed.person;
  });
}

/**
 * DELETE /v1/people/{id}: removes a person from the workspace with their sessions (they are
 * signed out at once), recovery codes and unused links, audited as `person.removed`. The last
 * owner cannot be removed; only an owner removes an owner. A person may remove themselves.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT (details.reason
 *   "last_owner"), SVC_TIER_INSUFFICIENT, SVC_WORKSPACE_CLOSED, SVC_FROZEN.
 */
export async function removePerson(deps: Pick<CoreDeps, "tx" | "clock" | "ids">, principal: Principal, input: { personId: string }, ctx: { requestId: string | null }): Promise<void> {
  const actor = requirePeopleAdmin(principal);
  await deps.tx.run(async (stores) => {
    const current = await stores.people.findById({ workspaceId: actor.workspace.id, personId: input.personId });
    if (current === null) throw notFound("Person");
    checkRoleChange(actor.person.role, current.role, null);
    const removed = await stores.workspacePeople.remove({ workspaceId: actor.workspace.id, personId: current.id });
    if (removed.kind === "not_found") throw notFound("Person");
    if (removed.kind === "last_owner") throw lastOwner();
    checkRoleChange(actor.person.role, removed.person.role, null);
    await audit(deps, stores, actor, { now: deps.clock.now(), activity: "person.removed", subjectId: current.id, requestId: ctx.requestId, details: { role: removed.person.role } });
  });
}

function lastOwner(): DomainError {
  return new DomainError("SVC_RESOURCE_CONFLICT", "The workspace's last owner cannot be removed or demoted; make someone else an owner first.", { reason: "last_owner" });
}
