import type { CoreDeps } from "../deps.ts";
import { notFound } from "../errors.ts";
import type { OperationContext } from "../operation.ts";
import { effectiveState, type MessageState } from "./message.ts";
import { parseMessageId } from "./message-fields.ts";
import { legallyWithheld } from "./legally-withheld.ts";
import { envelopeView, type EnvelopeView } from "./message-views.ts";
import { approvalOf, type ApprovalView } from "./approvals.ts";

/** One entry of a message's timeline. */
export interface TimelineEntry {
  at: string;
  activity: string;
  actor_ai_account_id: string | null;
  details: Record<string, unknown>;
}

/** The body of GET /v1/messages/{message_id}. */
export interface MessageViewResponse {
  envelope: EnvelopeView;
  state: MessageState;
  /** What held it for approval and who may decide (DESIGN §2c); only on a message an approval policy held. */
  approval?: ApprovalView;
  timeline: TimelineEntry[];
}

/**
 * GET /v1/messages/{message_id}: the envelope, the effective state and the timeline (the
 * message's audit rows, oldest first). Only the sender and the recipient may see a message
 * (a person's session sees every message of the workspace); to anyone else it does not exist.
 * A message withheld after a legal notice answers 451.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_LEGALLY_WITHHELD.
 */
export async function getMessage(deps: CoreDeps, ctx: OperationContext, input: { message_id: string }): Promise<MessageViewResponse> {
  const messageId = parseMessageId(input.message_id);
  const workspaceId = ctx.principal.workspace.id;
  const m = await deps.stores.messages.findForParticipant({ workspaceId, messageId, accountId: ctx.principal.kind === "person" ? null : ctx.principal.account.id });
  if (!m) throw notFound("Message");
  if (m.state === "withheld") throw legallyWithheld(m.id);
  const [now, rows, approval] = await Promise.all([deps.stores.messages.now(), deps.stores.audit.timeline({ workspaceId, messageId }), approvalOf(deps, m)]);
  return {
    envelope: envelopeView(m),
    state: effectiveState(m, now),
    ...(approval === null ? {} : { approval }),
    timeline: rows.map((r) => ({ at: r.occurredAt.toISOString(), activity: r.activity, actor_ai_account_id: r.actorAccountId, details: r.details })),
  };
}
