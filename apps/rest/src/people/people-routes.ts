import { changePersonRole, confirmPasswordReset, invitePerson, listPeople, malformed, peopleListItem, removePerson, resendInvitation } from "@agentq/core";
import type { Authenticator, CoreDeps, MailMessage, Principal } from "@agentq/core";
import { Type } from "@sinclair/typebox";
import type { Context, Hono } from "hono";
import { errorResponse } from "../error-response.ts";
import type { RestLogger } from "../logger.ts";
import type { JsonSchema, PlainRouteDescription } from "../openapi.ts";
import type { RestEnv } from "../rest-env.ts";
import type { RouteTable } from "@agentq/http";
import { json, readBody } from "./auth-routes.ts";
import { authenticateCaller } from "./authenticate-caller.ts";
import { sendLoggedMail } from "./logged-mail.ts";
import { acceptPasswordReset, refuseForeignOrigin, requestOrigin, type AfterAnswerWork } from "@agentq/http";
import { clearCookieHeader } from "@agentq/http";
import type { SessionEdge } from "@agentq/http";

/** POST /v1/auth/password-reset's body. */
export const PasswordResetBody = Type.Object({ email: Type.String({ minLength: 1, maxLength: 320, description: "The email address of the account." }) });
/** POST /v1/auth/password-reset/confirm's body. */
export const PasswordResetConfirmBody = Type.Object({
  token: Type.String({ minLength: 1, maxLength: 200, description: "The mailed token (agq_pr_... for a reset, agq_iv_... for an invitation)." }),
  password: Type.String({ minLength: 1, maxLength: 1024, description: "The new password: 12 to 256 characters; not a common password; not containing the email's local part." }),
});
const Role = Type.Union([Type.Literal("owner"), Type.Literal("admin"), Type.Literal("viewer")], { description: "owner and admin administer the workspace; a viewer reads only. Only an owner grants or takes away the owner role." });
/** POST /v1/people's body. */
export const InvitePersonBody = Type.Object({ email: Type.String({ minLength: 1, maxLength: 320, description: "The person's email address; the invitation is mailed there." }), role: Role });
/** PATCH /v1/people/{person_id}'s body. */
export const ChangeRoleBody = Type.Object({ role: Role });

const PERSON: JsonSchema = {
  type: "object",
  properties: { id: { type: "string" }, email: { type: "string" }, display_name: { type: ["string", "null"] }, role: { type: "string" }, mfa_enabled: { type: "boolean" }, created_at: { type: "string" }, password_set: { type: "boolean" } },
};
const INVITATION: JsonSchema = { type: "object", properties: { expires_at: { type: "string" }, mailed: { type: "boolean", description: "False when the mail could not be handed over; POST /v1/people/{person_id}/invitation sends a new one." } } };
const PERSON_ID = [{ name: "person_id", in: "path" as const, required: true, schema: { type: "string" } }];

/** The password-reset and people routes as the OpenAPI document lists them (human routes, not MCP tools). */
export const PEOPLE_ROUTE_DESCRIPTIONS: readonly PlainRouteDescription[] = [
  {
    method: "POST", path: "/v1/auth/password-reset", operationId: "request_password_reset", summary: "Mails a single-use password-reset link valid one hour to the address, when it has an account; 202 whatever the address.",
    status: 202, requestBody: PasswordResetBody, response: { type: "object" }, errors: [400, 403, 413, 415, 429],
  },
  {
    method: "POST", path: "/v1/auth/password-reset/confirm", operationId: "confirm_password_reset", summary: "Sets a new password with a mailed reset or invitation token; every session of the person ends.",
    status: 204, requestBody: PasswordResetConfirmBody, response: null, errors: [400, 401, 403, 413, 415, 429, 503],
  },
  { method: "GET", path: "/v1/people", operationId: "list_people", summary: "The people of the workspace (owner or admin session).", security: "session", response: { type: "object", properties: { items: { type: "array", items: PERSON } } }, errors: [401, 403, 503] },
  {
    method: "POST", path: "/v1/people", operationId: "invite_person", summary: "Invites a person with a role: mails a single-use link to set a password, valid 72 hours (owner or admin session).", security: "session",
    status: 201, requestBody: InvitePersonBody, response: { type: "object", properties: { person: PERSON, invitation: INVITATION } }, errors: [400, 401, 403, 409, 413, 415, 503],
  },
  {
    method: "POST", path: "/v1/people/{person_id}/invitation", operationId: "resend_invitation", summary: "Mails a new set-password link to an invited person who has no password yet; earlier links stop working.", security: "session", parameters: PERSON_ID,
    status: 201, response: { type: "object", properties: { invitation: INVITATION } }, errors: [401, 403, 404, 409, 429, 503],
  },
  {
    method: "PATCH", path: "/v1/people/{person_id}", operationId: "change_person_role", summary: "Changes a person's role; the last owner cannot be demoted (409).", security: "session", parameters: PERSON_ID,
    requestBody: ChangeRoleBody, response: { type: "object", properties: { person: PERSON } }, errors: [400, 401, 403, 404, 409, 413, 415, 503],
  },
  { method: "DELETE", path: "/v1/people/{person_id}", operationId: "remove_person", summary: "Removes a person and ends their sessions; the last owner cannot be removed (409).", security: "session", parameters: PERSON_ID, status: 204, response: null, errors: [401, 403, 404, 409, 503] },
];

/** What the people routes need. */
export interface PeopleRouteDeps {
  core: CoreDeps;
  authenticator: Pick<Authenticator, "authenticate">;
  sessions: SessionEdge;
  logger: RestLogger;
  /** Runs a reset's work after its answer. */
  afterAnswer: AfterAnswerWork;
}

/**
 * Registers the password-reset routes under /v1/auth and the people routes under /v1/people
 * (DESIGN §2b). The people routes take a person's session cookie only (an owner's or admin's;
 * a credential gets 403 SVC_TIER_INSUFFICIENT), with the origin check on writes. A reset request
 * answers 202 once the per-address limit and the email's form are checked, and its whole work
 * (lookup, token, mail, audit row) runs after the answer (`afterAnswer`), so the answer is the
 * same, in the same time, whatever the address. An invitation's mail goes out before its answer
 * (`invitation.mailed` says whether it was handed over). A mail failure is logged with its
 * reason only (never the address).
 */
export function registerPeopleRoutes(app: Hono<RestEnv>, routes: RouteTable, deps: PeopleRouteDeps): void {
  const { core, logger, sessions, afterAnswer } = deps;
  const origin = (c: Context<RestEnv>) => requestOrigin(c, sessions.origin, sessions.isTrustedProxy);
  const handle = (run: (c: Context<RestEnv>) => Promise<Response>) => async (c: Context<RestEnv>) => {
    try {
      return await run(c);
    } catch (err) {
      return errorResponse(c, err, logger);
    }
  };
  const requestId = (c: Context<RestEnv>) => c.get("requestId");
  const caller = async (c: Context<RestEnv>): Promise<Principal> => {
    const principal = await authenticateCaller(c, { core, authenticator: deps.authenticator, sessions }, { deferCallerCheck: false });
    c.set("principal", principal);
    return principal;
  };
  const personId = (c: Context<RestEnv>): string => {
    const id = c.req.param("person_id") ?? "";
    if (id.length === 0 || id.length > 64) throw malformed("person_id must be 1 to 64 characters.", { field: "person_id" });
    return id;
  };
  const mail = (message: MailMessage, c: Context<RestEnv>, what: string): Promise<boolean> => sendLoggedMail(deps, message, { requestId: requestId(c), what });
  const clearCookies = [clearCookieHeader(sessions.cookies, sessions.cookies.session), clearCookieHeader(sessions.cookies, sessions.cookies.pendingMfa)];

  routes.add("POST", "/v1/auth/password-reset");
  app.post("/v1/auth/password-reset", handle(async (c) => {
    refuseForeignOrigin(c, sessions.publicOrigin);
    const body = await readBody(c, PasswordResetBody);
    // The answer does not wait for the work: whether the email has an account, and whether a mail leaves, must not show in the answer or its timing.
    await acceptPasswordReset({ core, afterAnswer }, body, { origin: origin(c), requestId: requestId(c) });
    return json(202, { message: "If this address has an account, a link to reset its password is on its way; it works once, within one hour." });
  }));

  routes.add("POST", "/v1/auth/password-reset/confirm");
  app.post("/v1/auth/password-reset/confirm", handle(async (c) => {
    refuseForeignOrigin(c, sessions.publicOrigin);
    const body = await readBody(c, PasswordResetConfirmBody);
    await confirmPasswordReset(core, body, { origin: origin(c), requestId: requestId(c) });
    const headers = new Headers({ "Cache-Control": "no-store" });
    for (const cookie of clearCookies) headers.append("Set-Cookie", cookie);
    return new Response(null, { status: 204, headers });
  }));

  routes.add("GET", "/v1/people");
  app.get("/v1/people", handle(async (c) => json(200, { items: await listPeople(core, await caller(c)) })));

  routes.add("POST", "/v1/people");
  app.post("/v1/people", handle(async (c) => {
    const principal = await caller(c);
    const body = await readBody(c, InvitePersonBody);
    const invited = await invitePerson(core, principal, body, { requestId: requestId(c) });
    const mailed = await mail(invited.mail, c, "invitation");
    return json(201, { person: peopleListItem(invited.person), invitation: { expires_at: invited.expiresAt.toISOString(), mailed } });
  }));

  routes.add("POST", "/v1/people/{person_id}/invitation");
  app.post("/v1/people/:person_id/invitation", handle(async (c) => {
    const principal = await caller(c);
    const invitation = await resendInvitation(core, principal, { personId: personId(c) }, { requestId: requestId(c) });
    const mailed = await mail(invitation.mail, c, "invitation");
    return json(201, { invitation: { expires_at: invitation.expiresAt.toISOString(), mailed } });
  }));

  routes.add("PATCH", "/v1/people/{person_id}");
  app.patch("/v1/people/:person_id", handle(async (c) => {
    const principal = await caller(c);
    const body = await readBody(c, ChangeRoleBody);
    const person = await changePersonRole(core, principal, { personId: personId(c), role: body.role }, { requestId: requestId(c) });
    return json(200, { person: peopleListItem(person) });
  }));

  routes.add("DELETE", "/v1/people/{person_id}");
  app.delete("/v1/people/:person_id", handle(async (c) => {
    const principal = await caller(c);
    const id = personId(c);
    await removePerson(core, principal, { personId: id }, { requestId: requestId(c) });
    const headers = new Headers({ "Cache-Control": "no-store" });
    // Removing oneself ends one's own session too.
    if (principal.kind === "person" && principal.person.id === id) for (const cookie of clearCookies) headers.append("Set-Cookie", cookie);
    return new Response(null, { status: 204, headers });
  }));
}
