/** @jsxRuntime automatic @jsxImportSource hono/jsx */
import { pendingTotpEnrolment, type PersonPrincipal } from "@agentq/core";
import type { Context, Hono } from "hono";
import type { DashboardEnv } from "../dashboard-env.ts";
import type { Confirmation } from "../components/confirm.tsx";
import { registerConfirmedAction } from "../confirm-step.tsx";
import { readForm } from "../form-input.ts";
import { refusalOf, type PageKit } from "../page-kit.tsx";
import { MfaSetupPage, NewRecoveryCodesPage, RecoveryCodesPage } from "../pages/mfa-setup-page.tsx";
import { SettingsPage, type LinkedIdentityWire, type PersonMeWire } from "../pages/settings-page.tsx";
import { StepUpPage } from "../pages/step-up-page.tsx";
import { renderPage } from "../render-page.tsx";
import { safeReturnTo } from "../return-to.ts";
import { stepUpFresh, stepUpLocation } from "../step-up-redirect.ts";

const DONE: Record<string, string> = {
  stepped_up: "Confirmed: for five minutes you may do what needs a fresh code.",
  closed: "The workspace is closed: its AI accounts and credentials are revoked, and payloads are deleted 30 days from now. You can still export your data or erase yourself.",
  linked: "Linked: you can now sign in with the identity provider.",
  mfa_disabled: "Two-step verification is off: signing in needs only your password. Your recovery codes no longer work.",
};

/**
 * The settings page: the person (GET /v1/me), their workspace and plan; TOTP enrolment (a QR
 * code of the otpauth URI, confirmed with a code, then the recovery codes once) and the step-up,
 * through the catalogue's enroll_totp, confirm_totp, step_up, regenerate_recovery_codes and
 * disable_mfa, the operations of /v1/auth/mfa/* and /v1/auth/step-up (confirming ends the
 * session: its session intent clears the cookie); when OIDC is
 * configured, the identities linked to the person (list_linked_identities, GET
 * /v1/me/identities) and the way to link one (GET /v1/auth/oidc/start?link=1, DESIGN §2c).
 */
export function registerSettingsRoutes(app: Hono<DashboardEnv>, kit: PageKit, deps: { oidcLabel: string | null }): void {
  const person = (c: Context<DashboardEnv>) => c.get("principal") as PersonPrincipal;
  const settingsPage = async (c: Context<DashboardEnv>, error?: ReturnType<typeof refusalOf>) => {
    const me = await kit.run<PersonMeWire>(c, { name: "get_me", input: {} });
    const until = person(c).session.stepUpUntil;
    const stepUpUntil = stepUpFresh(until, kit.deps.clock.now()) ? until : null;
    const oidc = deps.oidcLabel === null ? null : { label: deps.oidcLabel, identities: (await kit.run<{ items: LinkedIdentityWire[] }>(c, { name: "list_linked_identities", input: {} })).items };
    return kit.page(c, { title: "Settings", current: "settings", status: error?.status }, <SettingsPage me={me} stepUpUntil={stepUpUntil} oidc={oidc} error={error?.error} done={DONE[c.req.query("done") ?? ""]} />);
  };

  app.get("/settings", (c) => settingsPage(c));
  app.post("/settings/mfa/enroll", async (c) => {
    try {
      const r = await kit.run<{ secret: string; otpauth_uri: string }>(c, { name: "enroll_totp", input: {} });
      return kit.page(c, { title: "Set up two-step verification", current: "settings" }, <MfaSetupPage secret={r.secret} otpauthUri={r.otpauth_uri} />);
    } catch (err) {
      return settingsPage(c, refusalOf(err, c.get("requestId")));
    }
  });
  app.post("/settings/mfa/confirm", async (c) => {
    const form = await readForm(c);
    try {
      const r = await kit.run<{ recovery_codes: string[] }>(c, { name: "confirm_totp", input: { code: form.text("code") } });
      // Every session created without MFA ended, this one included: the page is a signed-out one (the session intent clears the cookie).
      return renderPage(c, kit.assets, { title: "Two-step verification is on", viewer: null }, <RecoveryCodesPage codes={r.recovery_codes} />);
    } catch (err) {
      const refusal = refusalOf(err, c.get("requestId"));
      // A wrong code keeps the set-up: the same secret (the entry already scanned) and the error.
      const pending = await pendingTotpEnrolment(kit.deps, person(c));
      if (pending === null) return settingsPage(c, refusal);
      return kit.page(c, { title: "Set up two-step verification", current: "settings", status: refusal.status }, <MfaSetupPage secret={pending.secret} otpauthUri={pending.otpauthUri} error={refusal.error} />);
    }
  });
  // Turning MFA off and new recovery codes ask first, on a page of their own (a bare POST gets
  // that page too), and need a fresh step-up: without one, the step-up page comes first and
  // returns to the confirmation page.
  const MFA_CONFIRMATIONS: Record<"recovery-codes" | "disable", Confirmation> = {
    "recovery-codes": {
      title: "Get new recovery codes?",
      consequences: <p>Your current recovery codes stop working at once; the new ones are shown once. Your authenticator app keeps working.</p>,
      action: "/settings/mfa/recovery-codes",
      button: "Get new recovery codes",
      cancel: "/settings",
    },
    disable: {
      title: "Turn two-step verification off?",
      consequences: <p>Signing in will need only your password, and your recovery codes stop working. To turn it on again you set up your authenticator app anew.</p>,
      action: "/settings/mfa/disable",
      button: "Turn two-step verification off",
      cancel: "/settings",
    },
  };
  // A refusal: a missing step-up goes to the step-up page, which returns to the question.
  const refusedNeedingStepUp = (path: string) => (c: Context<DashboardEnv>, refusal: ReturnType<typeof refusalOf>) => (refusal.error.code === "SVC_STEP_UP_REQUIRED" ? c.redirect(stepUpLocation(path), 303) : settingsPage(c, refusal));
  registerConfirmedAction(app, kit, {
    path: "/settings/mfa/recovery-codes",
    current: "settings",
    question: () => MFA_CONFIRMATIONS["recovery-codes"],
    act: async (c) => {
      const r = await kit.run<{ recovery_codes: string[] }>(c, { name: "regenerate_recovery_codes", input: {} });
      return kit.page(c, { title: "New recovery codes", current: "settings" }, <NewRecoveryCodesPage codes={r.recovery_codes} />);
    },
    refused: refusedNeedingStepUp("/settings/mfa/recovery-codes"),
  });
  registerConfirmedAction(app, kit, {
    path: "/settings/mfa/disable",
    current: "settings",
    question: () => MFA_CONFIRMATIONS.disable,
    act: async (c) => {
      await kit.run(c, { name: "disable_mfa", input: {} });
      return "/settings?done=mfa_disabled";
    },
    refused: refusedNeedingStepUp("/settings/mfa/disable"),
  });
  const stepUpPage = (c: Context<DashboardEnv>, returnTo: string, error?: ReturnType<typeof refusalOf>) =>
    kit.page(c, { title: "Confirm it is you", status: error?.status }, <StepUpPage returnTo={returnTo} mfaEnabled={person(c).person.mfaEnabledAt !== null} error={error?.error} />);
  // Where an action refused with SVC_STEP_UP_REQUIRED sends the person; back to return_to after.
  app.get("/settings/step-up", (c) => stepUpPage(c, safeReturnTo(c.req.query("return_to"))));
  app.post("/settings/step-up", async (c) => {
    const form = await readForm(c);
    const recovery = form.text("recovery_code");
    const returnTo = form.text("return_to");
    try {
      await kit.run(c, { name: "step_up", input: recovery === "" ? { code: form.text("code") } : { recovery_code: recovery } });
      return c.redirect(returnTo === "" ? "/settings?done=stepped_up" : safeReturnTo(returnTo), 303);
    } catch (err) {
      const refusal = refusalOf(err, c.get("requestId"));
      return returnTo === "" ? settingsPage(c, refusal) : stepUpPage(c, safeReturnTo(returnTo), refusal);
    }
  });
}
