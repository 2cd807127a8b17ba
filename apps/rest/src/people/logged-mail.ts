import { isDomainError, sendMail } from "@agentq/core";
import type { CoreDeps, MailMessage } from "@agentq/core";
import type { RestLogger } from "../logger.ts";

/** The code of a mail failure's cause, for the log (never the address or the message). */
function mailFailureReason(error: unknown): string {
  const cause = isDomainError(error) ? (error.cause as { code?: unknown; responseCode?: unknown } | undefined) : undefined;
  if (typeof cause?.responseCode === "number") return `smtp_${cause.responseCode}`;
  if (typeof cause?.code === "string") return cause.code;
  return isDomainError(error) ? error.code : "unknown";
}

/**
 * Sends a mail of a people route through the mail port; false, and one log line with the
 * reason only (never the address, the text or a token), when it could not be handed over.
 */
export async function sendLoggedMail(deps: { core: Pick<CoreDeps, "mailer">; logger: RestLogger }, message: MailMessage, p: { requestId: string; what: string }): Promise<boolean> {
  try {
    await sendMail(deps.core, message);
    return true;
  } catch (error) {
    deps.logger.error({ request_id: p.requestId, mail: p.what, reason: mailFailureReason(error) }, "mail not sent");
    return false;
  }
}

/**
 * Sends a mail after the answer has been written (setImmediate), so whether and when a mail
 * leaves never shows in the answer or its timing: the anonymous routes that answer the same
 * whatever the address (password reset, sign-up).
 */
export function mailAfterAnswer(deps: { core: Pick<CoreDeps, "mailer">; logger: RestLogger }, message: MailMessage | null, p: { requestId: string; what: string }): void {
  if (message === null) return;
  setImmediate(() => void sendLoggedMail(deps, message, p));
}
