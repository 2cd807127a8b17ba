/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { authenticateSession, isDomainError, signIn, signOut, verifyEmail, verifyMfaSignIn } from "@agentq/core";
import { acceptSignUp, clearCookieHeader, readCookie, requestOrigin, setCookieHeader, type AfterAnswerWork, type SessionEdge } from "@agentq/http";
import type { Context, Hono } from "hono";
import { safeReturnTo } from "../return-to.ts";
import type { DashboardEnv } from "../dashboard-env.ts";
import { readForm } from "../form-input.ts";
import { refusalOf, type PageKit } from "../page-kit.tsx";
import { MfaPage } from "../pages/mfa-page.tsx";
import { SignInPage } from "../pages/sign-in-page.tsx";
import { SignUpPage } from "../pages/sign-up-page.tsx";
import { SignUpSentPage, VerifyEmailPage } from "../pages/verify-email-page.tsx";

/** What the sign-in pages need besides the kit. */
export interface AuthPageDeps {
  sessions: SessionEdge;
  /** The OIDC button's label, or null when OIDC is not configured. */
  oidcLabel: string | null;
  /** Runs a sign-up's work (lookup, pending sign-up, mail) after its page is answered. */
  afterAnswer: AfterAnswerWork;
}

/**
 * Sign-in (password, then the MFA step when the person has MFA on), sign-up (then "check your
 * mail"), the mailed link's page /verify-email, and sign-out: the same core use cases as POST
 * /v1/auth/*, the same cookies. Every POST here has passed the
 * dashboard's same-origin check, so another site can neither sign a browser in nor out.
 */
export function registerAuthRoutes(app: Hono<DashboardEnv>, kit: PageKit, deps: AuthPageDeps): void {
  const { cookies } = deps.sessions;
  const sessionCookie = (token: string) => setCookieHeader(cookies, cookies.session, token, (kit.deps.people?.settings.sessionAbsoluteMs ?? 12 * 3_600_000) / 1000);
  const origin = (c: Context<DashboardEnv>) => requestOrigin(c, deps.sessions.origin, (address) => deps.sessions.isTrustedProxy(address));
  const redirect = (location: string, setCookies: string[]) => {
    const headers = new Headers({ Location: location, "Cache-Control": "no-store" });
    for (const cookie of setCookies) headers.append("Set-Cookie", cookie);
    return new Response(null, { status: 303, headers });
  };
  const signInPage = (c: Context<DashboardEnv>, p: { returnTo: string; email?: string; error?: ReturnType<typeof refusalOf>; notice?: string }) =>
    kit.page(c, { title: "Sign in", status: p.error?.status }, <SignInPage returnTo={p.returnTo} email={p.email} oidcLabel={deps.oidcLabel} error={p.error?.error} notice={p.notice} />);

  const signInNotices: Record<string, string> = { signed_out: "You are signed out.", password_set: "Your password is set. Sign in with it." };
  const signInNotice = (c: Context<DashboardEnv>) => Object.keys(signInNotices).find((key) => c.req.query(key) === "1");
  app.get("/sign-in", (c) => {
    const notice = signInNotice(c);
    return signInPage(c, { returnTo: safeReturnTo(c.req.query("return_to")), ...(notice === undefined ? {} : { notice: signInNotices[notice] }) });
  });
  app.post("/sign-in", async (c) => {
    const form = await readForm(c);
    const returnTo = safeReturnTo(form.text("return_to"));
    try {
      const r = await signIn(kit.deps, { email: form.text("email"), password: form.raw("password") }, { origin: origin(c), requestId: c.get("requestId") });
      if (r.kind === "mfa_required") {
        const pending = setCookieHeader(cookies, cookies.pendingMfa, r.token, (r.session.expiresAt.getTime() - r.session.createdAt.getTime()) / 1000);
        return redirect(`/sign-in/mfa?${new URLSearchParams({ return_to: returnTo }).toString()}`, [pending, clearCookieHeader(cookies, cookies.session)]);
      }
      return redirect(returnTo, [sessionCookie(r.token), clearCookieHeader(cookies, cookies.pendingMfa)]);
    } catch (err) {
      return signInPage(c, { returnTo, email: form.text("email"), error: refusalOf(err, c.get("requestId")) });
    }
  });

  app.get("/sign-in/mfa", (c) => kit.page(c, { title: "Two-step verification" }, <MfaPage returnTo={safeReturnTo(c.req.query("return_to"))} />));
  app.post("/sign-in/mfa", async (c) => {
    const form = await readForm(c);
    const returnTo = safeReturnTo(form.text("return_to"));
    const recovery = form.text("recovery_code");
    try {
      const r = await verifyMfaSignIn(kit.deps, readCookie(c, cookies.pendingMfa), recovery === "" ? { code: form.text("code") } : { recovery_code: recovery }, { origin: origin(c), requestId: c.get("requestId") });
      return redirect(returnTo, [sessionCookie(r.token), clearCookieHeader(cookies, cookies.pendingMfa)]);
    } catch (err) {
      const refusal = refusalOf(err, c.get("requestId"));
      return kit.page(c, { title: "Two-step verification", status: refusal.status }, <MfaPage returnTo={returnTo} error={refusal.error} />);
    }
  });

  app.get("/sign-up", (c) => kit.page(c, { title: "Create a workspace" }, <SignUpPage values={{}} />));
  app.post("/sign-up", async (c) => {
    const form = await readForm(c);
    const values = { email: form.text("email"), workspace_name: form.text("workspace_name"), display_name: form.text("display_name") };
    try {
      // The same path as POST /v1/auth/sign-up: the client address's sign_up limit first, and the work after the
      // answer, so the page and its timing do not tell whether the address has an account.
      await acceptSignUp({ core: kit.deps, afterAnswer: deps.afterAnswer }, { email: values.email, password: form.raw("password"), workspace_name: values.workspace_name, ...(values.display_name === "" ? {} : { display_name: values.display_name }) }, { origin: origin(c), requestId: c.get("requestId") });
      return kit.page(c, { title: "Check your mail" }, <SignUpSentPage email={values.email.trim().toLowerCase()} />);
    } catch (err) {
      const refusal = refusalOf(err, c.get("requestId"));
      return kit.page(c, { title: "Create a workspace", status: refusal.status }, <SignUpPage values={values} error={refusal.error} />);
    }
  });

  const verifyEmailPage = (c: Context<DashboardEnv>, error?: ReturnType<typeof refusalOf>) => kit.page(c, { title: "Confirm your email", status: error?.status, scripts: [kit.assets.fragmentToken] }, <VerifyEmailPage error={error?.error} />);
  app.get("/verify-email", (c) => verifyEmailPage(c));
  app.post("/verify-email", async (c) => {
    const form = await readForm(c);
    try {
      // verifyEmail counts the client address's verify_email limit (DESIGN §2c), as on POST /v1/auth/verify-email.
      const r = await verifyEmail(kit.deps, { token: form.text("token") }, { origin: origin(c), requestId: c.get("requestId") });
      return redirect("/", [sessionCookie(r.token), clearCookieHeader(cookies, cookies.pendingMfa)]);
    } catch (err) {
      return verifyEmailPage(c, refusalOf(err, c.get("requestId")));
    }
  });

  app.post("/sign-out", async (c) => {
    const value = readCookie(c, cookies.session);
    if (value !== null) {
      try {
        const principal = await authenticateSession(kit.deps, value);
        await signOut(kit.deps, principal.session, { requestId: c.get("requestId") });
      } catch (err) {
        // An unknown or expired session is signed out already.
        if (!isDomainError(err) || err.code !== "SVC_UNAUTHENTICATED") throw err;
      }
    }
    return redirect("/sign-in?signed_out=1", [clearCookieHeader(cookies, cookies.session), clearCookieHeader(cookies, cookies.pendingMfa)]);
  });
}
