/** @jsxRuntime automatic @jsxImportSource hono/jsx */
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
  /** The OIDC button's label, or null when OIDC is not configured. */
  oidcLabel: string | null;
}

/**
 * Sign-in (password, then the MFA step when the person has MFA on), sign-up (then "check your
 * mail"), the mailed link's page /verify-email, and sign-out: the catalogue's sign_in,
 * verify_mfa, sign_up, verify_email and sign_out, the operations of POST /v1/auth/*, whose
 * session intents set the same cookies (and whose work after the answer, a sign-up's, runs as
 * over REST). Every POST here has passed the dashboard's same-origin check, so another site can
 * neither sign a browser in nor out.
 */
export function registerAuthRoutes(app: Hono<DashboardEnv>, kit: PageKit, deps: AuthPageDeps): void {
  const redirect = (location: string) => new Response(null, { status: 303, headers: { Location: location, "Cache-Control": "no-store" } });
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
      // The session intent sets the session's cookie, or (MFA on) the pending-MFA one.
      const r = await kit.run<{ mfa_required: boolean }>(c, { name: "sign_in", input: { email: form.text("email"), password: form.raw("password") } });
      return redirect(r.mfa_required ? `/sign-in/mfa?${new URLSearchParams({ return_to: returnTo }).toString()}` : returnTo);
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
      // The pending-MFA cookie names the sign-in; the session intent swaps it for the session's.
      await kit.run(c, { name: "verify_mfa", input: recovery === "" ? { code: form.text("code") } : { recovery_code: recovery } });
      return redirect(returnTo);
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
      // The operation of POST /v1/auth/sign-up: the client address's sign_up limit first, and the work after the
      // answer, so the page and its timing do not tell whether the address has an account.
      await kit.run(c, { name: "sign_up", input: { email: values.email, password: form.raw("password"), workspace_name: values.workspace_name, ...(values.display_name === "" ? {} : { display_name: values.display_name }) } });
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
      // verify_email counts the client address's verify_email limit (DESIGN §2c); its session intent signs the browser in.
      await kit.run(c, { name: "verify_email", input: { token: form.text("token") } });
      return redirect("/");
    } catch (err) {
      return verifyEmailPage(c, refusalOf(err, c.get("requestId")));
    }
  });

  app.post("/sign-out", async (c) => {
    // Ends the session cookie's session, if it is live; the session intent clears the cookies whatever it was.
    await kit.run(c, { name: "sign_out", input: {} });
    return redirect("/sign-in?signed_out=1");
  });
}
