/**
 * One outgoing mail of the service (password reset, invitations, notices, webhook alerts): who it
 * goes to and what it says. The sender address, transport and encoding are the adapter's
 * (DESIGN §2b "Mail"); the core only composes messages, and never sends anything itself.
 */
export interface MailMessage {
  /** One recipient address (`local@domain`), no display name. */
  to: string;
  /** One line of text. */
  subject: string;
  /** The plain-text body (always present: every mail reads without HTML). */
  text: string;
  /** An optional HTML alternative of `text`. */
  html?: string;
}

/** Limits of a mail message (RFC 5321: 254-character addresses; subjects are kept short). */
export const MAIL_LIMITS = { addressMaxLength: 254, subjectMaxLength: 200, bodyMaxLength: 100_000 } as const;

// One addr-spec without quoting or comments: a dot-atom local part and a domain of labels. Enough
// for the addresses people type; anything with spaces, commas, angle brackets or line breaks (which
// could add recipients or headers) is refused.
const ADDRESS = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;
// eslint-disable-next-line no-control-regex -- a subject is one line: control characters are what it refuses.
const CONTROL = /[\u0000-\u001f\u007f]/;

/** True for one plain mail address (`local@domain`) the mail port accepts as `to`. */
export function isMailAddress(value: string): boolean {
  return value.length <= MAIL_LIMITS.addressMaxLength && ADDRESS.test(value);
}

/**
 * Why a message cannot be sent as it is, or null when it can: one recipient address, a one-line
 * subject without control characters, a non-empty text body, all within MAIL_LIMITS. Use cases
 * compose their messages, so a refusal here is a bug of the caller, not of a client.
 */
export function mailMessageProblem(message: MailMessage): string | null {
  if (!isMailAddress(message.to)) return "to is not one plain mail address";
  if (message.subject.length === 0 || message.subject.length > MAIL_LIMITS.subjectMaxLength) return `subject must be 1 to ${MAIL_LIMITS.subjectMaxLength} characters`;
  if (CONTROL.test(message.subject)) return "subject must be one line without control characters";
  if (message.text.length === 0 || message.text.length > MAIL_LIMITS.bodyMaxLength) return `text must be 1 to ${MAIL_LIMITS.bodyMaxLength} characters`;
  if (message.html !== undefined && (message.html.length === 0 || message.html.length > MAIL_LIMITS.bodyMaxLength)) return `html, when given, must be 1 to ${MAIL_LIMITS.bodyMaxLength} characters`;
  return null;
}
