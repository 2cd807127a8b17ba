import type { MailMessage } from "../mail/mail-message.ts";

// The mail seam. Every port's general rules: src/ports.ts.

/**
 * Outgoing mail (DESIGN §2b "Mail"): password-reset and invitation links, notices, webhook
 * alerts. Adapters: SMTP through nodemailer when SMTP_URL is set, else one .eml file per mail
 * under `<AGENTQ_DATA_DIR>/mail/` (apps/server); InMemoryMailer in tests. An adapter adds the
 * sender address, the date and a message id, and never writes a mail's content to a log.
 * Use cases call it through `sendMail`, after the transaction that decided the mail commits.
 */
export interface Mailer {
  /**
   * Hands one message over (accepted by the SMTP server, or the file completely written).
   * Resolves when it is; rejects when it could not be, with nothing half-sent. Safe to call
   * concurrently. Not idempotent: two calls send two mails.
   */
  send(message: MailMessage): Promise<void>;
}
