import type { MailMessage } from "@agentq/core";

/**
 * The nodemailer fields of one message: the port's message plus the configured sender. Files and
 * URLs are never read into a mail (only the given strings are sent).
 */
export function nodemailerOptions(message: MailMessage, from: string): { from: string; to: string; subject: string; text: string; html?: string; disableFileAccess: true; disableUrlAccess: true } {
  return {
    from,
    to: message.to,
    subject: message.subject,
    text: message.text,
    ...(message.html === undefined ? {} : { html: message.html }),
    disableFileAccess: true,
    disableUrlAccess: true,
  };
}
