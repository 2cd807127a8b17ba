import type { CoreDeps } from "../deps.ts";
import type { OperationContext } from "../operation.ts";
import type { AccountRef } from "./message-views.ts";
import { prepareSend, type SendMessageInput } from "./prepare-send.ts";

/** The 200 body of a successful validate. */
export interface ValidateMessageResponse {
  valid: true;
  recipient: AccountRef;
  template: string;
}

/**
 * POST /v1/messages/validate: the whole send path as a dry run (limits, recipient resolution,
 * template and payload). Writes nothing, spends no idempotency key. A failing check throws the
 * same error the send would.
 * @throws DomainError SVC_MALFORMED_REQUEST, SVC_RECIPIENT_RESOLUTION_FAILED.
 */
export async function validateMessage(deps: CoreDeps, ctx: OperationContext, input: SendMessageInput): Promise<ValidateMessageResponse> {
  const { message, recipient } = await prepareSend(deps, ctx, input, { dryRun: true });
  return {
    valid: true,
    recipient: { ai_account_id: recipient.id, friendly_name: recipient.friendlyName },
    template: message.template,
  };
}
