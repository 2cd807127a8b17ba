import { sendMail } from "@agentq/core";
import type { CoreDeps, MailMessage } from "@agentq/core";
import { failureReason } from "@agentq/http";
import type { RestLogger } from "../logger.ts";

/**
 * Sends a mail of a people route through the mail port; false, and one log line with the
 * reason only (never the address, the text or a token), when it could not be handed over.
 * (The mails of the anonymous routes, sign-up and password reset, are sent by their work after
 * the answer: `acceptSignUp`, `acceptPasswordReset` in @agentq/http.)
 */
export async function sendLoggedMail(deps: { core: Pick<CoreDeps, "mailer">; logger: RestLogger }, message: MailMessage, p: { requestId: string; what: string }): Promise<boolean> {
  try {
    await sendMail(deps.core, message);
    return true;
  } catch (error) {
    deps.logger.error({ request_id: p.requestId, mail: p.what, reason: failureReason(error) }, "mail not sent");
    return false;
  }
}
