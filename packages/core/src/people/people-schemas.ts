import { Type } from "@sinclair/typebox";
import { PLAN_NAMES } from "../plans/plan-limits.ts";
import { ROLES } from "../access/model.ts";

const Timestamp = (description: string) => Type.String({ format: "date-time", description });

/** A person on the wire (GET /v1/me with a session, sign-up, sign-in). */
export const PersonSchema = Type.Object(
  {
    id: Type.String({ description: "ULID of the person." }),
    email: Type.String({ description: "The person's email address (lower-cased)." }),
    display_name: Type.Union([Type.String(), Type.Null()], { description: "The name shown for the person, or null." }),
    role: Type.Union(ROLES.map((r) => Type.Literal(r)), { description: "owner, admin (both administer the workspace) or viewer (reads only)." }),
    mfa_enabled: Type.Boolean({ description: "True once TOTP is confirmed." }),
    created_at: Timestamp("When the person was created."),
  },
  { description: "A person of the workspace." },
);

/** A person's workspace on the wire: the workspace and its plan. */
export const PersonWorkspaceSchema = Type.Object(
  {
    id: Type.String({ description: "ULID of the workspace." }),
    name: Type.String({ description: "The workspace's name." }),
    state: Type.Union([Type.Literal("active"), Type.Literal("frozen"), Type.Literal("closed")], { description: "active, frozen or closed." }),
    plan: Type.Union(PLAN_NAMES.map((p) => Type.Literal(p)), { description: "The workspace's plan." }),
  },
  { description: "The person's workspace." },
);

/** GET /v1/me with a session. */
export const PersonMeSchema = Type.Object(
  { kind: Type.Literal("person", { description: "A person signed in with a session cookie." }), person: PersonSchema, workspace: PersonWorkspaceSchema },
  { description: "The signed-in person." },
);

/** A person as the people list shows them (GET /v1/people): the person, and whether they have set a password yet. */
export const PeopleListItemSchema = Type.Composite(
  [PersonSchema, Type.Object({ password_set: Type.Boolean({ description: "False until an invited person sets a password (and for people who only sign in with OIDC)." }) })],
  { description: "A person of the workspace, as the people list shows them." },
);

const RoleInput = Type.Union(ROLES.map((r) => Type.Literal(r)), { description: "owner and admin administer the workspace; a viewer reads only. Only an owner grants or takes away the owner role." });
const PersonId = Type.String({ minLength: 1, maxLength: 64, description: "ULID of the person." });

/** POST /v1/people's input. */
export const InvitePersonInput = Type.Object({ email: Type.String({ minLength: 1, maxLength: 320, description: "The person's email address; the invitation is mailed there." }), role: RoleInput });
/** PATCH /v1/people/{person_id}'s input. */
export const ChangeRoleInput = Type.Object({ person_id: PersonId, role: RoleInput });
/** The input of the routes naming one person. */
export const PersonIdInput = Type.Object({ person_id: PersonId });

/** An invitation just mailed (or not). */
export const InvitationSchema = Type.Object(
  {
    expires_at: Timestamp("When the set-password link stops working (72 hours)."),
    mailed: Type.Boolean({ description: "False when the mail could not be handed over; POST /v1/people/{person_id}/invitation sends a new one." }),
  },
  { description: "The invitation mailed to the person." },
);

/** POST /v1/auth/password-reset's input. */
export const PasswordResetInput = Type.Object({ email: Type.String({ minLength: 1, maxLength: 320, description: "The email address of the account." }) });
/** POST /v1/auth/password-reset/confirm's input. */
export const PasswordResetConfirmInput = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: "The mailed token (agq_pr_... for a reset, agq_iv_... for an invitation)." }),
  password: Type.String({ minLength: 1, maxLength: 1024, description: "The new password: 12 to 256 characters; not a common password; not containing the email's local part." }),
});

const Email = Type.String({ minLength: 1, maxLength: 320, description: "The person's email address." });
const Password = Type.String({ minLength: 1, maxLength: 1024, description: "12 to 256 characters; not a common password; not containing the email's local part." });
const TotpCode = Type.String({ minLength: 1, maxLength: 16, description: "The 6-digit code the authenticator app shows now." });

/** POST /v1/auth/sign-up's input. */
export const SignUpInputSchema = Type.Object({
  email: Email,
  password: Password,
  workspace_name: Type.String({ minLength: 1, maxLength: 200, description: "Name of the new workspace." }),
  display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "The name shown for the person." })),
});
/** POST /v1/auth/verify-email's input. */
export const VerifyEmailInput = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200, description: "The token of the mailed link (agq_ev_..., after #token= in /verify-email#token=...)." }) });
/** POST /v1/auth/sign-in's input. */
export const SignInInput = Type.Object({ email: Email, password: Password });
/** POST /v1/auth/mfa/totp/confirm's input. */
export const ConfirmTotpInput = Type.Object({ code: TotpCode });
/** The input of POST /v1/auth/mfa/verify and /v1/auth/step-up: exactly one of the two. */
export const SecondFactorInputSchema = Type.Object({
  code: Type.Optional(TotpCode),
  recovery_code: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "One of the ten recovery codes (each works once)." })),
});
/** What a sign-in answers (and its second step): the person, or that a second factor is awaited. */
export const SignedInSchema = Type.Object({ person: Type.Optional(PersonSchema), mfa_required: Type.Boolean({ description: "True when the password was right and a second factor is awaited (POST /v1/auth/mfa/verify)." }) });
