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
