/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { SET_PASSWORD_PAGES } from "@agentq/core";
import type { Context, Hono } from "hono";
import type { DashboardEnv } from "../dashboard-env.ts";
import { readForm } from "../form-input.ts";
import { refusalOf, type PageKit } from "../page-kit.tsx";
import { ForgotPasswordPage, SetPasswordPage, type SetPasswordPurpose } from "../pages/password-pages.tsx";

/**
 * The pages of the mailed links (DESIGN §2b): "forgot your password?" (request_password_reset,
 * the operation of POST /v1/auth/password-reset: the client address's limit, then the same
 * answer whether or not the email has an account, the lookup, token, mail and audit row after
 * it), and the set-password pages the reset and invitation mails open
 * (`/reset-password#token=...`, `/accept-invitation#token=...`: the token travels in the fragment
 * and a script of this origin fills it into the form; POST runs confirm_password_reset, the
 * operation of POST /v1/auth/password-reset/confirm: every session of the person ends, this
 * browser's cookies are cleared, and the person signs in with the new password).
 */
export function registerPasswordRoutes(app: Hono<DashboardEnv>, kit: PageKit): void {
  const forgot = (c: Context<DashboardEnv>, p: Parameters<typeof ForgotPasswordPage>[0], status?: ReturnType<typeof refusalOf>["status"]) =>
    kit.page(c, { title: "Reset your password", status }, <ForgotPasswordPage {...p} />);

  app.get("/forgot-password", (c) => forgot(c, {}));
  app.post("/forgot-password", async (c) => {
    const form = await readForm(c);
    const email = form.text("email");
    try {
      await kit.run(c, { name: "request_password_reset", input: { email } });
      return forgot(c, { sent: true });
    } catch (err) {
      const refusal = refusalOf(err, c.get("requestId"));
      return forgot(c, { email, error: refusal.error }, refusal.status);
    }
  });

  const setPassword = (purpose: SetPasswordPurpose, path: string, title: string) => {
    app.get(path, (c) => kit.page(c, { title, scripts: [kit.assets.fragmentToken] }, <SetPasswordPage purpose={purpose} />));
    app.post(path, async (c) => {
      const form = await readForm(c);
      const token = form.text("token");
      try {
        await kit.run(c, { name: "confirm_password_reset", input: { token, password: form.raw("password") } });
        return new Response(null, { status: 303, headers: { Location: "/sign-in?password_set=1", "Cache-Control": "no-store" } });
      } catch (err) {
        const refusal = refusalOf(err, c.get("requestId"));
        return kit.page(c, { title, status: refusal.status, scripts: [kit.assets.fragmentToken] }, <SetPasswordPage purpose={purpose} token={token} error={refusal.error} />);
      }
    });
  };
  setPassword("reset", SET_PASSWORD_PAGES.password_reset, "Choose a new password");
  setPassword("invitation", SET_PASSWORD_PAGES.invitation, "Join the workspace");
}
