import { Type } from "@sinclair/typebox";
import type { CoreDeps } from "../deps.ts";
import type { MailMessage } from "../mail/mail-message.ts";
import { sendMail } from "../mail/send-mail.ts";
import { type OperationContext, definePeopleOperation } from "../operation.ts";
import { changePersonRole, invitePerson, listPeople, peopleListItem, removePerson, resendInvitation } from "./manage-people.ts";
import { confirmPasswordReset, requestPasswordReset } from "./password-reset.ts";
import { ChangeRoleInput, InvitationSchema, InvitePersonInput, PasswordResetConfirmInput, PasswordResetInput, PeopleListItemSchema, PersonIdInput } from "./people-schemas.ts";
import { originOf } from "./auth-operations.ts";

// The people's area of the catalogue (DESIGN §1, §2b): the workspace's people (a person's session)
// and the password reset (anonymous), never MCP tools; a browser's sign-in is auth-operations.ts.
// The rules (owner or admin, the owner role, the last owner) stay in the use cases; `auth`
// states the first of them so that the edges and the isolation matrix can see it.

/** Owners and admins administer the workspace's people. */
const ADMINISTERING = { kind: "person", roles: ["owner", "admin"] } as const;

/** Hands an invitation's mail over after the commit: false, and the edge told, when it could not be. */
async function mailInvitation(deps: CoreDeps, ctx: OperationContext, mail: MailMessage): Promise<boolean> {
  try {
    await sendMail(deps, mail);
    return true;
  } catch (error) {
    ctx.onMailNotSent?.("invitation", error);
    return false;
  }
}

export const listPeopleOp = definePeopleOperation({
  name: "list_people",
  summary: "The people of the workspace (owner or admin session).",
  http: { method: "GET", path: "/v1/people" },
  auth: ADMINISTERING,
  mutates: false,
  input: Type.Object({}),
  output: Type.Object({ items: Type.Array(PeopleListItemSchema) }),
  successStatus: 200,
  async handler(deps, ctx) {
    return { body: { items: await listPeople(deps, ctx.principal) } };
  },
});

export const invitePersonOp = definePeopleOperation({
  name: "invite_person",
  summary: "Invites a person with a role: mails a single-use link to set a password, valid 72 hours (owner or admin session).",
  http: { method: "POST", path: "/v1/people" },
  auth: ADMINISTERING,
  mutates: true,
  input: InvitePersonInput,
  output: Type.Object({ person: PeopleListItemSchema, invitation: InvitationSchema }),
  successStatus: 201,
  async handler(deps, ctx, input) {
    const invited = await invitePerson(deps, ctx.principal, input, { requestId: ctx.requestId });
    const mailed = await mailInvitation(deps, ctx, invited.mail);
    return { body: { person: peopleListItem(invited.person), invitation: { expires_at: invited.expiresAt.toISOString(), mailed } } };
  },
});

export const resendInvitationOp = definePeopleOperation({
  name: "resend_invitation",
  summary: "Mails a new set-password link to an invited person who has no password yet; earlier links stop working.",
  http: { method: "POST", path: "/v1/people/{person_id}/invitation" },
  auth: ADMINISTERING,
  mutates: true,
  input: PersonIdInput,
  output: Type.Object({ invitation: InvitationSchema }),
  successStatus: 201,
  async handler(deps, ctx, input) {
    const invitation = await resendInvitation(deps, ctx.principal, { personId: input.person_id }, { requestId: ctx.requestId });
    const mailed = await mailInvitation(deps, ctx, invitation.mail);
    return { body: { invitation: { expires_at: invitation.expiresAt.toISOString(), mailed } } };
  },
});

export const changePersonRoleOp = definePeopleOperation({
  name: "change_person_role",
  summary: "Changes a person's role; the last owner cannot be demoted (409).",
  http: { method: "PATCH", path: "/v1/people/{person_id}" },
  auth: ADMINISTERING,
  mutates: true,
  input: ChangeRoleInput,
  output: Type.Object({ person: PeopleListItemSchema }),
  successStatus: 200,
  async handler(deps, ctx, input) {
    const person = await changePersonRole(deps, ctx.principal, { personId: input.person_id, role: input.role }, { requestId: ctx.requestId });
    return { body: { person: peopleListItem(person) } };
  },
});

export const removePersonOp = definePeopleOperation({
  name: "remove_person",
  summary: "Removes a person and ends their sessions; the last owner cannot be removed (409).",
  http: { method: "DELETE", path: "/v1/people/{person_id}" },
  auth: ADMINISTERING,
  mutates: true,
  input: PersonIdInput,
  output: Type.Null({ description: "No body (204)." }),
  successStatus: 204,
  async handler(deps, ctx, input) {
    await removePerson(deps, ctx.principal, { personId: input.person_id }, { requestId: ctx.requestId });
    // Removing oneself ends one's own session too.
    const self = ctx.principal.kind === "person" && ctx.principal.person.id === input.person_id;
    return { body: null, ...(self ? { session: { kind: "end" } as const } : {}) };
  },
});

export const requestPasswordResetOp = definePeopleOperation({
  name: "request_password_reset",
  summary: "Mails a single-use password-reset link valid one hour to the address, when it has an account; 202 whatever the address.",
  http: { method: "POST", path: "/v1/auth/password-reset", refuseForeignOrigin: true },
  auth: { kind: "public" },
  mutates: true,
  input: PasswordResetInput,
  errors: [403],
  output: Type.Object({ message: Type.String({ description: "What happens next, for humans." }) }),
  successStatus: 202,
  async handler(deps, ctx, input) {
    // The client address's limit and the email's form decide the answer; the lookup, token, mail and
    // audit row run after it, so whether the email has an account shows neither in the answer nor in its timing.
    const requested = await requestPasswordReset(deps, input, { origin: originOf(ctx), requestId: ctx.requestId });
    return {
      body: { message: "If this address has an account, a link to reset its password is on its way; it works once, within one hour." },
      afterAnswer: { what: "password_reset", work: requested.work },
    };
  },
});

export const confirmPasswordResetOp = definePeopleOperation({
  name: "confirm_password_reset",
  summary: "Sets a new password with a mailed reset or invitation token; every session of the person ends.",
  http: { method: "POST", path: "/v1/auth/password-reset/confirm", refuseForeignOrigin: true },
  auth: { kind: "public" },
  mutates: true,
  input: PasswordResetConfirmInput,
  errors: [401, 403],
  output: Type.Null({ description: "No body (204)." }),
  successStatus: 204,
  async handler(deps, ctx, input) {
    await confirmPasswordReset(deps, input, { origin: originOf(ctx), requestId: ctx.requestId });
    // Every session of the person ended: this browser's cookies go too.
    return { body: null, session: { kind: "end" } };
  },
});

/** The people area's catalogue entries, in the order the OpenAPI document lists them. */
export const PEOPLE_OPERATIONS = [requestPasswordResetOp, confirmPasswordResetOp, listPeopleOp, invitePersonOp, resendInvitationOp, changePersonRoleOp, removePersonOp];
