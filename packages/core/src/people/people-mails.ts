import type { MailMessage } from "../mail/mail-message.ts";

/** Where the dashboard takes a mailed token: the token travels in the fragment, so it never reaches a server log or a Referer. */
export const SET_PASSWORD_PAGES = { password_reset: "/reset-password", invitation: "/accept-invitation" } as const;

/** Where the dashboard takes a sign-up's verification token (in the fragment, like the others). */
export const VERIFY_EMAIL_PAGE = "/verify-email";

/** The link of a mailed token on the service. */
export function tokenLink(publicBaseUrl: string, page: string, token: string): string {
  return `${publicBaseUrl}${page}#token=${token}`;
}

/** The closing lines of a mail whose token sets a password: how to spend it without a browser. */
function setPasswordByApi(publicBaseUrl: string, token: string, password: "the new password" | "your password"): string[] {
  return [`Without a browser, send the token with ${password}:`, `POST ${publicBaseUrl}/v1/auth/password-reset/confirm {"token": "${token}", "password": "..."}`];
}

/** The password-reset mail (DESIGN §2b): a single-use token valid one hour. */
export function passwordResetMail(p: { to: string; publicBaseUrl: string; token: string }): MailMessage {
  const link = tokenLink(p.publicBaseUrl, SET_PASSWORD_PAGES.password_reset, p.token);
  return {
    to: p.to,
    subject: "Reset your agentq password",
    text: [
      `Someone asked to reset the password of the agentq account ${p.to} at ${p.publicBaseUrl}.`,
      "",
      "To choose a new password, open this link within one hour:",
      link,
      "",
      "The link works once. Every session of the account ends when the new password is set.",
      "If you did not ask for this, ignore this mail: your password stays as it is.",
      "",
      ...setPasswordByApi(p.publicBaseUrl, p.token, "the new password"),
    ].join("\n"),
  };
}

/** The invitation mail: a single-use link to set a first password, valid 72 hours. */
export function invitationMail(p: { to: string; publicBaseUrl: string; token: string; workspaceName: string; role: string; invitedBy: string | null }): MailMessage {
  const link = tokenLink(p.publicBaseUrl, SET_PASSWORD_PAGES.invitation, p.token);
  return {
    to: p.to,
    subject: `You are invited to the agentq workspace ${oneLine(p.workspaceName)}`,
    text: [
      `${p.invitedBy === null ? "You were" : `${p.invitedBy} has`} invited you to the agentq workspace "${p.workspaceName}" at ${p.publicBaseUrl}, as ${p.role === "admin" ? "an admin" : `a ${p.role}`}.`,
      "",
      "To accept, choose your password within 72 hours at:",
      link,
      "",
      "The link works once. Then sign in with this email address and that password.",
      "If you did not expect this, ignore this mail.",
      "",
      ...setPasswordByApi(p.publicBaseUrl, p.token, "your password"),
    ].join("\n"),
  };
}

/**
 * The mail of a sign-up (DESIGN §2c): the single-use link that proves the address, valid 24
 * hours. It carries nothing the requester typed but the address itself (not the workspace or
 * display name): anyone may ask for a sign-up of any address, so the mail must not carry their text.
 */
export function signUpVerificationMail(p: { to: string; publicBaseUrl: string; token: string }): MailMessage {
  const link = tokenLink(p.publicBaseUrl, VERIFY_EMAIL_PAGE, p.token);
  return {
    to: p.to,
    subject: "Confirm your email to create your agentq workspace",
    text: [
      `Someone asked to create an agentq workspace at ${p.publicBaseUrl} with this address, ${p.to}.`,
      "",
      "To confirm that this address is yours and create the workspace, open this link within 24 hours:",
      link,
      "",
      "The link works once, and signs you in. Nothing is created until it is opened.",
      "If you did not ask for this, ignore this mail: no account is made.",
      "",
      "Without a browser, send the token:",
      `POST ${p.publicBaseUrl}/v1/auth/verify-email {"token": "${p.token}"}`,
    ].join("\n"),
  };
}

/**
 * The mail of a sign-up for an address that already has an account (DESIGN §2c): it says so,
 * points to the sign-in page, and offers a single-use password-reset link (valid one hour) when
 * one could be issued.
 */
export function signUpRegisteredMail(p: { to: string; publicBaseUrl: string; resetToken: string }): MailMessage {
  const link = tokenLink(p.publicBaseUrl, SET_PASSWORD_PAGES.password_reset, p.resetToken);
  return {
    to: p.to,
    subject: "You already have an agentq account",
    text: [
      `Someone asked to create an agentq workspace at ${p.publicBaseUrl} with this address, ${p.to}. This address already has an account, so nothing was created.`,
      "",
      `To sign in: ${p.publicBaseUrl}/sign-in`,
      "",
      "If you forgot your password, choose a new one with this link within one hour (it works once; every session of the account then ends):",
      link,
      "",
      "If you did not ask for this, ignore this mail: your account stays as it is.",
      "",
      ...setPasswordByApi(p.publicBaseUrl, p.resetToken, "the new password"),
    ].join("\n"),
  };
}

/** A workspace name as one short subject line (control characters out, at most 80 characters). */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- a subject is one line.
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}
