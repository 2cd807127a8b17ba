import type { CoreDeps } from "../deps.ts";
import type { OperationContext } from "../operation.ts";
import { holdsSend } from "../policies/approval-holds.ts";
import type { AccountRef } from "./message-views.ts";
import { prepareSend, type SendMessageInput } from "./prepare-send.ts";

/** The 200 body of a successful validate. */
export interface ValidateMessageResponse {
  valid: true;
  recipient: AccountRef;
  template: string;
  /** True when an approval policy would hold the send for a person's approval (DESIGN §2c). */
  held_for_approval: boolean;
  /** The policy that would hold it, when one would. */
  approval?: { policy_id: string; policy_name: string };
}

/**
 * POST /v1/messages/validate: the whole send path as a dry run (limits, recipient resolution,
 * template and payload). Writes nothing, spends no idempotency key. A failing check throws the
 * same error the send would. Says whether an approval policy would hold the send (the same
 * match the send's write makes; one more read of the workspace's approval policies).
 * @throws DomainError SVC_MALFORMED_REQUEST, SVC_RECIPIENT_RESOLUTION_FAILED.
 */
export async function validateMessage(deps: CoreDeps, ctx: OperationContext, input: SendMessageInput): Promise<ValidateMessageResponse> {
  const { message, recipient } = await prepareSend(deps, ctx, input, { dryRun: true });
  const approvals = await deps.stores.policies.listApproval({ workspaceId: message.workspaceId });
  const holder = approvals.find((p) => p.holds !== null && holdsSend(p.holds, message));
  return {
    valid: true,
    recipient: { ai_account_id: recipient.id, friendly_name: recipient.friendlyName },
    template: message.template,
    held_for_approval: holder !== undefined,
    ...(holder === undefined ? {} : { approval: { policy_id: holder.id, policy_name: holder.name } }),
  };
}
