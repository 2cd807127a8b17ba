import type { MailMessage } from "../mail/mail-message.ts";

/** Where the dashboard takes a mailed token: the token travels in the fragment, so it never reaches a server log or a Referer. */
export const SET_PASSWORD_PAGES = { password_reset: "/reset-password", invitation: "/accept-invitation" } as const;

/** The link of a mailed token on the service. */
export function tokenLink(publicBaseUrl: string, page: string, token: string): string {
  return `${publicBaseUrl}${page}#token=${token}`;
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
      "Without a browser, send the token with the new password:",
      `POST ${p.publicBaseUrl}/v1/auth/password-reset/confirm {"token": "${p.token}", "password": "..."}`,
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
      "Without a browser, send the token with your password:",
      `POST ${p.publicBaseUrl}/v1/auth/password-reset/confirm {"token": "${p.token}", "password": "..."}`,
    ].join("\n"),
  };
}

/** A workspace name as one short subject line (control characters out, at most 80 characters). */
function oneLine(text: string): string {
  // eslint-disable-next-line no-control-regex -- a subject is one line.
  const flat = text.replace(/[\u0000-\u001f\u007f]+/g, " ").trim();
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}
