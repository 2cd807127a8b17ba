import type { CoreDeps } from "../deps.ts";
import { notFound } from "../errors.ts";
import type { OperationContext } from "../operation.ts";
import { shownState, type MessageRecord, type MessageState } from "./message.ts";
import { parseMessageId } from "./message-fields.ts";
import { legallyWithheld } from "./legally-withheld.ts";
import { messageAuditEntry } from "./message-audit.ts";
import { envelopeView, type EnvelopeView } from "./message-views.ts";
import { approvalOf, type ApprovalView } from "./approvals.ts";

/** One entry of a message's timeline. */
export interface TimelineEntry {
  at: string;
  activity: string;
  actor_ai_account_id: string | null;
  details: Record<string, unknown>;
}

/** The current (or last) lease of a message: when it was claimed and when it runs (or ran) out. */
export interface LeaseView {
  claimed_at: string;
  expires_at: string;
  extensions: number;
  /** False once it ran out (the message is claimable again) or ended (acknowledged, dead-lettered). */
  live: boolean;
}

/** The body of GET /v1/messages/{message_id}. */
export interface MessageViewResponse {
  envelope: EnvelopeView;
  state: MessageState;
  /** The lease of a held message (live or run out); null when it is not held. */
  lease: LeaseView | null;
  /** The size of the payload as stored JSON, in bytes (the payload itself: get_message_payload). */
  payload_bytes: number;
  /** What held it for approval and who may decide (DESIGN §2c); only on a message an approval policy held. */
  approval?: ApprovalView;
  timeline: TimelineEntry[];
}

/**
 * GET /v1/messages/{message_id}: the envelope, the shown state, the lease, the payload's size
 * and the timeline (the message's audit rows, oldest first). Only the sender and the recipient
 * may see a message (a person's session sees every message of the workspace); to anyone else it
 * does not exist. A message withheld after a legal notice answers 451.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_LEGALLY_WITHHELD.
 */
export async function getMessage(deps: CoreDeps, ctx: OperationContext, input: { message_id: string }): Promise<MessageViewResponse> {
  const m = await findVisible(deps, ctx, input.message_id);
  const workspaceId = ctx.principal.workspace.id;
  const [now, rows, approval] = await Promise.all([deps.stores.messages.now(), deps.stores.audit.timeline({ workspaceId, messageId: m.id }), approvalOf(deps, m)]);
  return {
    envelope: envelopeView(m),
    state: shownState(m, now),
    lease: leaseView(m, now),
    payload_bytes: payloadBytes(m.payload),
    ...(approval === null ? {} : { approval }),
    timeline: rows.map((r) => ({ at: r.occurredAt.toISOString(), activity: r.activity, actor_ai_account_id: r.actorAccountId, details: r.details })),
  };
}

/**
 * GET /v1/messages/{message_id}/payload (administrative; an owner's or admin's session): the
 * message's payload, each read recorded as a `message.payload_viewed` audit row. Who may see the
 * message at all as for get_message.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_LEGALLY_WITHHELD.
 */
export async function getMessagePayload(deps: CoreDeps, ctx: OperationContext, input: { message_id: string }): Promise<{ message_id: string; template: string; payload: unknown }> {
  const m = await findVisible(deps, ctx, input.message_id);
  await deps.stores.audit.append({ entry: messageAuditEntry(deps, ctx, { messageId: m.id, activity: "message.payload_viewed" }) });
  return { message_id: m.id, template: m.template, payload: m.payload };
}

async function findVisible(deps: CoreDeps, ctx: OperationContext, id: string): Promise<MessageRecord> {
  const messageId = parseMessageId(id);
  const m = await deps.stores.messages.findForParticipant({ workspaceId: ctx.principal.workspace.id, messageId, accountId: ctx.principal.kind === "person" ? null : ctx.principal.account.id });
  if (!m) throw notFound("Message");
  if (m.state === "withheld") throw legallyWithheld(m.id);
  return m;
}

/** The lease of a held message at `now`; null for any other state. */
export function leaseView(m: Pick<MessageRecord, "state" | "leaseClaimedAt" | "visibleAt" | "leaseExtensions">, now: Date): LeaseView | null {
  if (m.state !== "held" || m.leaseClaimedAt === null) return null;
  return { claimed_at: m.leaseClaimedAt.toISOString(), expires_at: m.visibleAt.toISOString(), extensions: m.leaseExtensions, live: m.visibleAt.getTime() > now.getTime() };
}

/** The UTF-8 length of `payload` as JSON. */
export function payloadBytes(payload: unknown): number {
  return new TextEncoder().encode(JSON.stringify(payload) ?? "").length;
}
