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
