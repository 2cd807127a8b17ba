import { Type } from "@sinclair/typebox";
import type { PersonPrincipal } from "../access/model.ts";
import type { CoreDeps } from "../deps.ts";
import { DomainError, isDomainError } from "../errors.ts";
import { type OperationContext, type SessionIntent, definePeopleOperation } from "../operation.ts";
import { confirmTotp, disableMfa, enrollTotp, regenerateRecoveryCodes, stepUp, verifyMfaSignIn } from "./mfa-flows.ts";
import { ConfirmTotpInput, PersonSchema, PersonWorkspaceSchema, SecondFactorInputSchema, SignedInSchema, SignInInput, SignUpInputSchema, VerifyEmailInput } from "./people-schemas.ts";
import { DEFAULT_PEOPLE_SETTINGS, type RequestOrigin } from "./people-settings.ts";
import { personView, personWorkspaceView } from "./people-views.ts";
import type { OpenedSession } from "./sessions.ts";
import { authenticateSession } from "./authenticate-session.ts";
import { signIn, signOut } from "./sign-in.ts";
import { requestSignUp, SIGN_UP_PLAN } from "./sign-up.ts";
import { verifyEmail } from "./verify-email.ts";

// A browser's sign-in in the catalogue (DESIGN §2b): sign-up and its email verification, sign-in
// and its second factor (anonymous, refusing another site's Origin), sign-out, TOTP enrolment
// and step-up (a person's session). Never MCP tools. A session started is a session intent: the
// REST edge sets the cookie.

/** A person's own session, whatever the role and the workspace's state (MFA is the person's, not the workspace's). */
const OWN_SESSION = { kind: "person", roles: ["owner", "admin", "viewer"], closedWorkspaceAllowed: true } as const;

/** Where the request came from, as the edge saw it (in process: unknown). */
export function originOf(ctx: OperationContext): RequestOrigin {
  return ctx.origin ?? { clientAddress: ctx.clientAddress ?? "unknown", country: null };
}

/** The person of a session cookie's value, or null when there is none or it is not live (ended, expired, unknown). */
export async function sessionOrNull(deps: CoreDeps, token: string | null): Promise<PersonPrincipal | null> {
  if (token === null) return null;
  try {
    return await authenticateSession(deps, token);
  } catch (e) {
    if (isDomainError(e) && e.code === "SVC_UNAUTHENTICATED") return null;
    throw e;
  }
}

/** The session intent of a session just opened: its stage's cookie, for the session's lifetime (a signed-in one: the absolute timeout). */
export function started(deps: CoreDeps, opened: OpenedSession): SessionIntent {
  const { session, token } = opened;
  if (session.stage === "pending_mfa") return { kind: "start", stage: "pending_mfa", token, maxAgeSeconds: (session.expiresAt.getTime() - session.createdAt.getTime()) / 1000 };
  return { kind: "start", stage: "active", token, maxAgeSeconds: (deps.people?.settings.sessionAbsoluteMs ?? DEFAULT_PEOPLE_SETTINGS.sessionAbsoluteMs) / 1000 };
}

export const signUpOp = definePeopleOperation({
  name: "sign_up",
  summary: "Sign up: mails a single-use link (PUBLIC_BASE_URL/verify-email#token=agq_ev_..., valid 24 hours) that proves the email; nothing is created until it is used. 202 whatever the address (an address with an account is mailed that instead).",
  http: { method: "POST", path: "/v1/auth/sign-up", refuseForeignOrigin: true },
  auth: { kind: "public" },
  mutates: true,
  input: SignUpInputSchema,
  errors: [403],
  output: Type.Object({ verification: Type.Literal("sent") }),
  successStatus: 202,
  async handler(deps, ctx, input) {
    // The client address's sign_up limit (DESIGN §2c) is counted first, before the body's work; the answer does not
    // wait for the rest: whether the address has an account, and so which mail leaves, must not show.
    const requested = await requestSignUp(deps, input, { origin: originOf(ctx), requestId: ctx.requestId });
    return { body: { verification: "sent" }, afterAnswer: { what: "sign_up", work: requested.work } };
  },
});

export const verifyEmailOp = definePeopleOperation({
  name: "verify_email",
  summary: "Verify the email of a sign-up with the mailed token: creates the workspace (free plan) with the person as its owner; sets the session cookie. An unknown, used or expired token is 401; an address that got an account meanwhile is 409.",
  http: { method: "POST", path: "/v1/auth/verify-email", refuseForeignOrigin: true },
  auth: { kind: "public" },
  mutates: true,
  input: VerifyEmailInput,
  errors: [401, 403],
  output: Type.Object({ person: PersonSchema, workspace: PersonWorkspaceSchema }),
  successStatus: 201,
  async handler(deps, ctx, input) {
    // verifyEmail counts the client address's verify_email limit (DESIGN §2c) before it looks at the token.
    const r = await verifyEmail(deps, input, { origin: originOf(ctx), requestId: ctx.requestId });
    return { body: { person: personView(r.person), workspace: personWorkspaceView(r.workspace, SIGN_UP_PLAN) }, session: started(deps, r) };
  },
});

export const signInOp = definePeopleOperation({
  name: "sign_in",
  summary: "Sign in by email and password; sets the session cookie, or (MFA on) the pending-MFA cookie.",
  http: { method: "POST", path: "/v1/auth/sign-in", refuseForeignOrigin: true },
  auth: { kind: "public" },
  mutates: true,
  input: SignInInput,
  errors: [401, 403],
  output: SignedInSchema,
  successStatus: 200,
  async handler(deps, ctx, input) {
    const r = await signIn(deps, input, { origin: originOf(ctx), requestId: ctx.requestId });
    const body = r.kind === "mfa_required" ? { mfa_required: true } : { person: personView(r.person), mfa_required: false };
    return { body, session: started(deps, r) };
  },
});

export const signOutOp = definePeopleOperation({
  name: "sign_out",
  summary: "Sign out: ends the session and clears the cookie.",
  http: { method: "POST", path: "/v1/auth/sign-out", noBody: true },
  auth: { kind: "public" },
  errors: [403],
  mutates: true,
  input: Type.Object({}),
  output: Type.Null({ description: "No body (204)." }),
  successStatus: 204,
  async handler(deps, ctx) {
    const token = ctx.sessionToken ?? null;
    if (token !== null) {
      // The session's cookie makes this a cookie-authenticated write: another site cannot sign a browser out.
      if (ctx.cookieWriteAllowed === false) throw new DomainError("SVC_CSRF_REJECTED", "The request must come from the service's own origin.");
      // An unknown or expired session is signed out already.
      const principal = await sessionOrNull(deps, token);
      if (principal !== null) await signOut(deps, principal.session, { requestId: ctx.requestId });
    }
    return { body: null, session: { kind: "end" } };
  },
});

export const enrollTotpOp = definePeopleOperation({
  name: "enroll_totp",
  summary: "Start TOTP enrolment (session): a new secret and its otpauth:// URI; confirm it with a code.",
  http: { method: "POST", path: "/v1/auth/mfa/totp/enroll" },
  auth: OWN_SESSION,
  mutates: true,
  input: Type.Object({}),
  output: Type.Object({ secret: Type.String({ description: "The TOTP secret (base32)." }), otpauth_uri: Type.String({ description: "The otpauth:// URI for an authenticator app." }) }),
  successStatus: 200,
  async handler(deps, ctx) {
    const r = await enrollTotp(deps, ctx.principal as PersonPrincipal, { requestId: ctx.requestId });
    return { body: { secret: r.secret, otpauth_uri: r.otpauthUri } };
  },
});

export const confirmTotpOp = definePeopleOperation({
  name: "confirm_totp",
  summary: "Confirm TOTP with a code (session): MFA on, ten recovery codes once, and every session created without MFA ends, this one included (the cookie is cleared).",
  http: { method: "POST", path: "/v1/auth/mfa/totp/confirm" },
  auth: OWN_SESSION,
  mutates: true,
  input: ConfirmTotpInput,
  output: Type.Object({ recovery_codes: Type.Array(Type.String(), { description: "The ten recovery codes, shown this once." }) }),
  successStatus: 200,
  async handler(deps, ctx, input) {
    const r = await confirmTotp(deps, ctx.principal as PersonPrincipal, input, { requestId: ctx.requestId });
    // The current session was created without MFA: it ended with the others.
    return { body: { recovery_codes: r.recoveryCodes }, session: { kind: "end", keepPendingMfa: true } };
  },
});

export const verifyMfaOp = definePeopleOperation({
  name: "verify_mfa",
  summary: "Complete a sign-in with MFA (the pending-MFA cookie): a TOTP code or a recovery code; sets the session cookie.",
  http: { method: "POST", path: "/v1/auth/mfa/verify", refuseForeignOrigin: true },
  auth: { kind: "public" },
  errors: [401, 403],
  mutates: true,
  input: SecondFactorInputSchema,
  output: SignedInSchema,
  successStatus: 200,
  async handler(deps, ctx, input) {
    const r = await verifyMfaSignIn(deps, ctx.pendingMfaToken ?? null, input, { origin: originOf(ctx), requestId: ctx.requestId });
    return { body: { person: personView(r.person), mfa_required: false }, session: started(deps, r) };
  },
});

export const stepUpOp = definePeopleOperation({
  name: "step_up",
  summary: "Step up the session with a TOTP code or a recovery code: step-up operations are allowed for five minutes.",
  http: { method: "POST", path: "/v1/auth/step-up" },
  auth: OWN_SESSION,
  mutates: true,
  input: SecondFactorInputSchema,
  output: Type.Object({ step_up_expires_at: Type.String({ format: "date-time", description: "Until when step-up operations are allowed." }) }),
  successStatus: 200,
  async handler(deps, ctx, input) {
    const r = await stepUp(deps, ctx.principal as PersonPrincipal, input, { origin: originOf(ctx), requestId: ctx.requestId });
    return { body: { step_up_expires_at: r.stepUpUntil.toISOString() } };
  },
});

/** A person's own session with a fresh step-up, whatever the role and the workspace's state. */
const OWN_STEPPED_UP_SESSION = { ...OWN_SESSION, stepUp: true } as const;

export const regenerateRecoveryCodesOp = definePeopleOperation({
  name: "regenerate_recovery_codes",
  summary: "Replaces the recovery codes with ten new ones, shown once (session + fresh MFA step-up); the old ones stop working. Without MFA there is no step-up: 401 SVC_STEP_UP_REQUIRED (mfa_not_enabled).",
  http: { method: "POST", path: "/v1/auth/mfa/recovery-codes" },
  auth: OWN_STEPPED_UP_SESSION,
  mutates: true,
  input: Type.Object({}),
  output: Type.Object({ recovery_codes: Type.Array(Type.String(), { description: "The ten new recovery codes, shown this once." }) }),
  successStatus: 200,
  async handler(deps, ctx) {
    const r = await regenerateRecoveryCodes(deps, ctx.principal, { requestId: ctx.requestId });
    return { body: { recovery_codes: r.recoveryCodes } };
  },
});

export const disableMfaOp = definePeopleOperation({
  name: "disable_mfa",
  summary: "Turns two-step verification off (session + fresh MFA step-up): the TOTP secret and the recovery codes are dropped; signing in needs only the password. Without MFA there is no step-up: 401 SVC_STEP_UP_REQUIRED (mfa_not_enabled).",
  http: { method: "DELETE", path: "/v1/auth/mfa" },
  auth: OWN_STEPPED_UP_SESSION,
  mutates: true,
  input: Type.Object({}),
  output: Type.Null({ description: "No body (204)." }),
  successStatus: 204,
  async handler(deps, ctx) {
    await disableMfa(deps, ctx.principal, { requestId: ctx.requestId });
    return { body: null };
  },
});

/** A browser's sign-in, in the order the OpenAPI document lists them. */
export const AUTH_OPERATIONS = [signUpOp, verifyEmailOp, signInOp, signOutOp, enrollTotpOp, confirmTotpOp, verifyMfaOp, stepUpOp, regenerateRecoveryCodesOp, disableMfaOp];
