import type { CoreDeps } from "../deps.ts";
import { DomainError } from "../errors.ts";
import { mailMessageProblem, type MailMessage } from "./mail-message.ts";

/**
 * Hands one message to the mail port. Call it after the transaction that decided the mail has
 * committed (a mail cannot be rolled back), never inside it.
 *
 * Throws a plain Error for a message its caller composed wrongly (a programming error: use cases
 * build their messages from input they already checked), and SVC_SERVICE_UNAVAILABLE when the
 * service has no mail port or the port could not hand the mail over (the transport's error is
 * kept as the cause).
 */
export async function sendMail(deps: Pick<CoreDeps, "mailer">, message: MailMessage): Promise<void> {
  const problem = mailMessageProblem(message);
  if (problem !== null) throw new Error(`sendMail: ${problem}`);
  if (deps.mailer === undefined) throw new DomainError("SVC_SERVICE_UNAVAILABLE", "This server has no mail transport configured.");
  try {
    await deps.mailer.send(message);
  } catch (error) {
    throw new DomainError("SVC_SERVICE_UNAVAILABLE", "The mail could not be handed to the mail transport; retry later.", undefined, { cause: error });
  }
}
