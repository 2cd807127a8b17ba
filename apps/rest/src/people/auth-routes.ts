import { authenticateSession, confirmTotp, enrollTotp, isDomainError, malformed, personView, personWorkspaceView, sessionUnauthenticated, SIGN_UP_PLAN, signIn, signOut, stepUp, validateInput, verifyEmail, verifyMfaSignIn } from "@agentq/core";
import type { CoreDeps } from "@agentq/core";
import { Type, type Static, type TObject } from "@sinclair/typebox";
import type { Context, Hono } from "hono";
import { errorResponse } from "../error-response.ts";
import type { RestLogger } from "../logger.ts";
import type { PlainRouteDescription } from "../openapi.ts";
import type { RestEnv } from "../rest-env.ts";
import { acceptSignUp, checkCookieWrite, refuseForeignOrigin, requestOrigin, clearCookieHeader, nodeBodyOf, readCookie, readJsonBody, setCookieHeader, type AfterAnswerWork, type RouteTable, type SessionEdge } from "@agentq/http";

const Email = Type.String({ minLength: 1, maxLength: 320, description: "The person's email address." });
const Password = Type.String({ minLength: 1, maxLength: 1024, description: "12 to 256 characters; not a common password; not containing the email's local part." });

/** POST /v1/auth/sign-up's body. */
export const SignUpBody = Type.Object({
  email: Email,
  password: Password,
  workspace_name: Type.String({ minLength: 1, maxLength: 200, description: "Name of the new workspace." }),
  display_name: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: "The name shown for the person." })),
});

/** POST /v1/auth/verify-email's body. */
export const VerifyEmailBody = Type.Object({ token: Type.String({ minLength: 1, maxLength: 200, description: "The token of the mailed link (agq_ev_..., after #token= in /verify-email#token=...)." }) });

/** POST /v1/auth/sign-in's body. */
export const SignInBody = Type.Object({ email: Email, password: Password });

const TotpCode = Type.String({ minLength: 1, maxLength: 16, description: "The 6-digit code the authenticator app shows now." });

/** POST /v1/auth/mfa/totp/confirm's body. */
export const ConfirmBody = Type.Object({ code: TotpCode });

/** The body of POST /v1/auth/mfa/verify and /v1/auth/step-up: exactly one of the two. */
export const SecondFactorBody = Type.Object({
  code: Type.Optional(TotpCode),
  recovery_code: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: "One of the ten recovery codes (each works once)." })),
});

/** What the auth routes need. */
export interface AuthRouteDeps {
  core: CoreDeps;
  sessions: SessionEdge;
  logger: RestLogger;
  /** Runs a sign-up's work after its answer. */
  afterAnswer: AfterAnswerWork;
}

/** The auth routes as the OpenAPI document lists them (human routes, not MCP tools). */
export const AUTH_ROUTE_DESCRIPTIONS: readonly PlainRouteDescription[] = [
  {
    method: "POST", path: "/v1/auth/sign-up", operationId: "sign_up", summary: "Sign up: mails a single-use link (PUBLIC_BASE_URL/verify-email#token=agq_ev_..., valid 24 hours) that proves the email; nothing is created until it is used. 202 whatever the address (an address with an account is mailed that instead).",
    status: 202, requestBody: SignUpBody, response: { type: "object", required: ["verification"], properties: { verification: { type: "string", enum: ["sent"] } } }, errors: [400, 403, 413, 415, 429, 503],
  },
  {
    method: "POST", path: "/v1/auth/verify-email", operationId: "verify_email", summary: "Verify the email of a sign-up with the mailed token: creates the workspace (free plan) with the person as its owner; sets the session cookie. An unknown, used or expired token is 401; an address that got an account meanwhile is 409.",
    status: 201, requestBody: VerifyEmailBody, response: { type: "object", properties: { person: { type: "object" }, workspace: { type: "object" } } }, errors: [400, 401, 403, 409, 413, 415, 429, 503],
  },
  {
    method: "POST", path: "/v1/auth/sign-in", operationId: "sign_in", summary: "Sign in by email and password; sets the session cookie, or (MFA on) the pending-MFA cookie.",
    status: 200, requestBody: SignInBody, response: { type: "object", properties: { person: { type: "object" }, mfa_required: { type: "boolean" } } }, errors: [400, 401, 403, 413, 415, 429, 503],
  },
  { method: "POST", path: "/v1/auth/sign-out", operationId: "sign_out", summary: "Sign out: ends the session and clears the cookie.", status: 204, response: null, errors: [403, 503] },
  {
    method: "POST", path: "/v1/auth/mfa/totp/enroll", operationId: "enroll_totp", summary: "Start TOTP enrolment (session): a new secret and its otpauth:// URI; confirm it with a code.",
    status: 200, response: { type: "object", required: ["secret", "otpauth_uri"], properties: { secret: { type: "string" }, otpauth_uri: { type: "string" } } }, errors: [401, 403, 409, 503],
  },
  {
    method: "POST", path: "/v1/auth/mfa/totp/confirm", operationId: "confirm_totp", summary: "Confirm TOTP with a code (session): MFA on, ten recovery codes once, and every session created without MFA ends, this one included (the cookie is cleared).",
    status: 200, requestBody: ConfirmBody, response: { type: "object", required: ["recovery_codes"], properties: { recovery_codes: { type: "array", items: { type: "string" } } } }, errors: [400, 401, 403, 409, 413, 415, 503],
  },
  {
    method: "POST", path: "/v1/auth/mfa/verify", operationId: "verify_mfa", summary: "Complete a sign-in with MFA (the pending-MFA cookie): a TOTP code or a recovery code; sets the session cookie.",
    status: 200, requestBody: SecondFactorBody, response: { type: "object", properties: { person: { type: "object" }, mfa_required: { type: "boolean" } } }, errors: [400, 401, 403, 413, 415, 429, 503],
  },
  {
    method: "POST", path: "/v1/auth/step-up", operationId: "step_up", summary: "Step up the session with a TOTP code or a recovery code: step-up operations are allowed for five minutes.",
    status: 200, requestBody: SecondFactorBody, response: { type: "object", required: ["step_up_expires_at"], properties: { step_up_expires_at: { type: "string", format: "date-time" } } }, errors: [400, 401, 403, 413, 415, 429, 503],
  },
];

/** The body of a human route, checked against its schema; a refusal names the field. */
export async function readBody<S extends TObject>(c: Context<RestEnv>, schema: S): Promise<Static<S>> {
  const body = await readJsonBody(c.req.raw, nodeBodyOf(c));
  try {
    return validateInput(schema, body);
  } catch (e) {
    if (!isDomainError(e)) throw e;
    const first = (e.details?.errors as { path?: string }[] | undefined)?.[0]?.path ?? "/";
    const field = first.split("/")[1];
    throw malformed(e.message, { ...e.details, ...(field ? { field } : {}) });
  }
}

/** A JSON answer of a human route (no-store), with Set-Cookie headers. */
export function json(status: number, body: unknown, cookies: readonly string[] = []): Response {
  const headers = new Headers({ "Content-Type": "application/json; charset=utf-8", "Cache-Control": "no-store" });
  for (const cookie of cookies) headers.append("Set-Cookie", cookie);
  return new Response(JSON.stringify(body), { status, headers });
}

/**
 * Registers the JSON routes under /v1/auth (DESIGN §2b, §2c): sign-up and its email verification, sign-in, sign-out, TOTP
 * enrolment and confirmation, the second step of a sign-in with MFA, and step-up. A
 * request to them carrying an Origin header from elsewhere is refused (403 SVC_CSRF_REJECTED),
 * so another site cannot sign a browser in or out.
 */
export function registerAuthRoutes(app: Hono<RestEnv>, routes: RouteTable, deps: AuthRouteDeps): void {
  const { cookies } = deps.sessions;
  const handle = (run: (c: Context<RestEnv>) => Promise<Response>) => async (c: Context<RestEnv>) => {
    try {
      return await run(c);
    } catch (err) {
      return errorResponse(c, err, deps.logger);
    }
  };
  const origin = (c: Context<RestEnv>) => requestOrigin(c, deps.sessions.origin, deps.sessions.isTrustedProxy);
  const sessionCookie = (token: string) => setCookieHeader(cookies, cookies.session, token, (deps.core.people?.settings.sessionAbsoluteMs ?? 12 * 3_600_000) / 1000);

  routes.add("POST", "/v1/auth/sign-up");
  app.post("/v1/auth/sign-up", handle(async (c) => {
    refuseForeignOrigin(c, deps.sessions.publicOrigin);
    const body = await readBody(c, SignUpBody);
    // The client address's sign_up limit (DESIGN §2c) is counted first in requestSignUp, before the body's work; the
    // answer does not wait for the rest: whether the address has an account, and so which mail leaves, must not show.
    await acceptSignUp({ core: deps.core, afterAnswer: deps.afterAnswer }, body, { origin: origin(c), requestId: c.get("requestId") });
    return json(202, { verification: "sent" });
  }));

  routes.add("POST", "/v1/auth/verify-email");
  app.post("/v1/auth/verify-email", handle(async (c) => {
    refuseForeignOrigin(c, deps.sessions.publicOrigin);
    const body = await readBody(c, VerifyEmailBody);
    // verifyEmail counts the client address's verify_email limit (DESIGN §2c) before it looks at the token.
    const r = await verifyEmail(deps.core, body, { origin: origin(c), requestId: c.get("requestId") });
    return json(201, { person: personView(r.person), workspace: personWorkspaceView(r.workspace, SIGN_UP_PLAN) }, [sessionCookie(r.token), clearCookieHeader(cookies, cookies.pendingMfa)]);
  }));

  routes.add("POST", "/v1/auth/sign-in");
  app.post("/v1/auth/sign-in", handle(async (c) => {
    refuseForeignOrigin(c, deps.sessions.publicOrigin);
    const body = await readBody(c, SignInBody);
    const r = await signIn(deps.core, body, { origin: origin(c), requestId: c.get("requestId") });
    if (r.kind === "mfa_required") {
      return json(200, { mfa_required: true }, [setCookieHeader(cookies, cookies.pendingMfa, r.token, (r.session.expiresAt.getTime() - r.session.createdAt.getTime()) / 1000), clearCookieHeader(cookies, cookies.session)]);
    }
    return json(200, { person: personView(r.person), mfa_required: false }, [sessionCookie(r.token), clearCookieHeader(cookies, cookies.pendingMfa)]);
  }));

  routes.add("POST", "/v1/auth/sign-out");
  app.post("/v1/auth/sign-out", handle(async (c) => {
    const value = readCookie(c, cookies.session);
    if (value !== null) {
      checkCookieWrite(c, deps.sessions.publicOrigin);
      try {
        const principal = await authenticateSession(deps.core, value);
        await signOut(deps.core, principal.session, { requestId: c.get("requestId") });
      } catch (e) {
        // An unknown or expired session is signed out already.
        if (!isDomainError(e) || e.code !== "SVC_UNAUTHENTICATED") throw e;
      }
    }
    const headers = new Headers({ "Cache-Control": "no-store" });
    headers.append("Set-Cookie", clearCookieHeader(cookies, cookies.session));
    headers.append("Set-Cookie", clearCookieHeader(cookies, cookies.pendingMfa));
    return new Response(null, { status: 204, headers });
  }));

  // --- MFA (slice A2) ---
  const sessionOf = async (c: Context<RestEnv>) => {
    const value = readCookie(c, cookies.session);
    if (value === null) throw sessionUnauthenticated();
    const principal = await authenticateSession(deps.core, value);
    checkCookieWrite(c, deps.sessions.publicOrigin);
    return principal;
  };

  routes.add("POST", "/v1/auth/mfa/totp/enroll");
  app.post("/v1/auth/mfa/totp/enroll", handle(async (c) => {
    const principal = await sessionOf(c);
    const r = await enrollTotp(deps.core, principal, { requestId: c.get("requestId") });
    return json(200, { secret: r.secret, otpauth_uri: r.otpauthUri });
  }));

  routes.add("POST", "/v1/auth/mfa/totp/confirm");
  app.post("/v1/auth/mfa/totp/confirm", handle(async (c) => {
    const principal = await sessionOf(c);
    const body = await readBody(c, ConfirmBody);
    const r = await confirmTotp(deps.core, principal, body, { requestId: c.get("requestId") });
    // The current session was created without MFA: it ended with the others.
    return json(200, { recovery_codes: r.recoveryCodes }, [clearCookieHeader(cookies, cookies.session)]);
  }));

  routes.add("POST", "/v1/auth/mfa/verify");
  app.post("/v1/auth/mfa/verify", handle(async (c) => {
    refuseForeignOrigin(c, deps.sessions.publicOrigin);
    const body = await readBody(c, SecondFactorBody);
    const r = await verifyMfaSignIn(deps.core, readCookie(c, cookies.pendingMfa), body, { origin: origin(c), requestId: c.get("requestId") });
    return json(200, { person: personView(r.person), mfa_required: false }, [sessionCookie(r.token), clearCookieHeader(cookies, cookies.pendingMfa)]);
  }));

  routes.add("POST", "/v1/auth/step-up");
  app.post("/v1/auth/step-up", handle(async (c) => {
    const principal = await sessionOf(c);
    const body = await readBody(c, SecondFactorBody);
    const r = await stepUp(deps.core, principal, body, { origin: origin(c), requestId: c.get("requestId") });
    return json(200, { step_up_expires_at: r.stepUpUntil.toISOString() });
  }));
}
