import { DomainError } from "../errors.ts";

/**
 * The refusal of any read or lease write of a message withheld after a legal notice (DESIGN
 * §2b, RFC 7725): 451 SVC_LEGALLY_WITHHELD. The notice itself is disclosed to the workspace
 * (GET /v1/notices), not named here, so a recipient in another role learns nothing more.
 */
export function legallyWithheld(messageId: string): DomainError {
  return new DomainError("SVC_LEGALLY_WITHHELD", "The message is withheld after a legal notice.", { message_id: messageId });
}
