import type { OperationAuth, OperationContext } from "../operation.ts";
import type { CoreDeps } from "../deps.ts";
import type { Stores } from "../ports.ts";
import { DomainError, notFound } from "../errors.ts";
import { keysetPage } from "../cursors/paged-list.ts";
import { requireStepUp } from "../people/step-up.ts";
import type { Policy } from "../policies/policy.ts";
import { effectiveState, type MessageRecord, type MessageState } from "./message.ts";
import { messageAuditEntry } from "./message-audit.ts";
import { parseMessageId, parseOptionalText } from "./message-fields.ts";
import { envelopeView, type EnvelopeView } from "./message-views.ts";
import { legallyWithheld } from "./legally-withheld.ts";
import { MESSAGING_LIMITS } from "./messaging-limits.ts";

// Messages held for a person's approval (DESIGN §2c): an approval policy holds a matching send
// (state held_for_approval, never claimed); an owner's or admin's session, or an administrative
// credential with scope approve_messages, approves it (pending, claimable) or rejects it (the
// terminal rejected). Expiry applies while it waits.

/** Who may decide on a held message: administrative, scope approve_messages (an owner's or admin's session holds every administrative scope). */
export const APPROVAL_AUTH: OperationAuth = { kind: "credential", tier: "administrative", scope: "approve_messages" };

/** Said of every held message: who may decide on it. */
export const APPROVERS = "an owner's or admin's session, or an administrative credential with scope approve_messages";

/** What held a message, as the message view and the waiting list show it. */
export interface ApprovalView {
  policy_id: string;
  /** The policy's name (null when the policy is no longer of kind approval). */
  policy_name: string | null;
  /** A person's session must have stepped up (MFA) in the last five minutes to decide. */
  require_step_up: boolean;
  /** Who may approve or reject it. */
  approvers: string;
}

/** The 201 body of a held send: the send's body with `state: "held_for_approval"` and the policy that held it. */
export function heldSendBody(body: Record<string, unknown>, heldBy: { policyId: string; policyName: string }): Record<string, unknown> {
  return { ...body, state: "held_for_approval", approval: { policy_id: heldBy.policyId, policy_name: heldBy.policyName } };
}

/** The approval view of a message an approval policy held (null when none did), from that policy's current version. */
export async function approvalOf(deps: Pick<CoreDeps, "stores">, m: MessageRecord, policies = new Map<string, Policy | null>()): Promise<ApprovalView | null> {
  if (m.approvalPolicyId === null) return null;
  if (!policies.has(m.approvalPolicyId)) policies.set(m.approvalPolicyId, await deps.stores.policies.findCurrent({ workspaceId: m.workspaceId, policyId: m.approvalPolicyId }));
  const policy = policies.get(m.approvalPolicyId) ?? null;
  const approval = policy?.kind === "approval" ? policy : null;
  return { policy_id: m.approvalPolicyId, policy_name: approval?.name ?? null, require_step_up: approval?.holds?.requireStepUp ?? false, approvers: APPROVERS };
}

/** One message of the waiting list (or one decided on): envelope, payload, effective state and what held it. */
export interface ApprovalItem {
  envelope: EnvelopeView;
  payload: unknown;
  state: MessageState;
  approval: ApprovalView;
}

/**
 * GET /v1/approvals: the workspace's messages held for approval, oldest first, with their
 * payloads (what the approver decides on), paged with limit and cursor. Expired ones leave the
 * list at their expiry.
 * @throws DomainError SVC_MALFORMED_REQUEST (limit), SVC_CURSOR_EXPIRED.
 */
export async function listApprovals(deps: CoreDeps, ctx: OperationContext, input: { limit?: unknown; cursor?: string | null }): Promise<{ items: ApprovalItem[]; next_cursor: string | null }> {
  const workspaceId = ctx.principal.workspace.id;
  let now = new Date(0);
  const page = await keysetPage(
    deps,
    ctx,
    { resource: "approvals", filters: {}, limit: input.limit, cursor: input.cursor },
    async (after, limit) => {
      const [rows, dbNow] = await Promise.all([deps.stores.messages.listHeldForApproval({ workspaceId, after, limit }), deps.stores.messages.now()]);
      now = dbNow;
      return rows;
    },
    (m) => m,
  );
  const policies = new Map<string, Policy | null>();
  const items: ApprovalItem[] = [];
  for (const m of page.items) items.push(await approvalItem(deps, m, now, policies));
  return { items, next_cursor: page.next_cursor };
}

async function approvalItem(deps: Pick<CoreDeps, "stores">, m: MessageRecord, now: Date, policies?: Map<string, Policy | null>): Promise<ApprovalItem> {
  return { envelope: envelopeView(m), payload: m.payload, state: effectiveState(m, now), approval: (await approvalOf(deps, m, policies)) as ApprovalView };
}

/**
 * GET /v1/approvals/{message_id}: a message an approval policy held, whatever became of it, with
 * its payload. Any other message (or another workspace's) is 404; a withheld one 451.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_LEGALLY_WITHHELD.
 */
export async function getApproval(deps: CoreDeps, ctx: OperationContext, input: { message_id: string }): Promise<ApprovalItem> {
  const messageId = parseMessageId(input.message_id);
  const m = await deps.stores.messages.findForParticipant({ workspaceId: ctx.principal.workspace.id, messageId, accountId: null });
  if (m === null || m.approvalPolicyId === null) throw notFound("Message");
  if (m.state === "withheld") throw legallyWithheld(m.id);
  return approvalItem(deps, m, await deps.stores.messages.now());
}

/** The 200 body of approve and reject. */
export interface DecisionResponse {
  message_id: string;
  state: "pending" | "rejected";
  decided_at: string;
}

/**
 * POST /v1/messages/{message_id}/approve and /reject: decides on a message held for approval, in
 * one guarded write decided by the store clock (still held, not expired) with its audit row
 * (`message.approved`, or `message.rejected` with the reason). Approved, it is pending and
 * claimable by its recipient (at once, or when its deliver_after ends), its recipient woken and
 * its webhook deliveries written; rejected, it is gone for good (the terminal `rejected`, never
 * claimed). When the holding policy asks for it, a person's session must have stepped up in the
 * last five minutes (credentials with the scope need not).
 * @throws DomainError SVC_RESOURCE_NOT_FOUND (no such message, or none an approval policy held),
 *   SVC_STEP_UP_REQUIRED, SVC_LEGALLY_WITHHELD, SVC_EXPIRED, SVC_RESOURCE_CONFLICT
 *   (details.reason "not_held_for_approval": decided already, details.state),
 *   SVC_MALFORMED_REQUEST (reason).
 */
export async function decideApproval(deps: CoreDeps, ctx: OperationContext, input: { message_id: string; reason?: string | null }, decision: "approve" | "reject", stores: Stores = deps.stores): Promise<DecisionResponse> {
  const messageId = parseMessageId(input.message_id);
  const reason = decision === "reject" ? parseOptionalText(input.reason, "reason", MESSAGING_LIMITS.rejectReasonMaxLength) : null;
  const workspaceId = ctx.principal.workspace.id;
  const m = await stores.messages.findForParticipant({ workspaceId, messageId, accountId: null });
  if (m === null || m.approvalPolicyId === null) throw notFound("Message");
  const approval = await approvalOf({ stores }, m);
  if (approval?.require_step_up === true && ctx.principal.kind === "person") requireStepUp(ctx.principal, deps.clock.now());
  const activity = decision === "approve" ? "message.approved" : "message.rejected";
  const audit = messageAuditEntry(deps, ctx, { messageId, activity, details: { policy_id: m.approvalPolicyId, ...(reason === null ? {} : { reason }) } });
  const r = await stores.messages.decideApproval({ workspaceId, messageId, approve: decision === "approve", audit });
  if (r.kind === "decided") return { message_id: messageId, state: decision === "approve" ? "pending" : "rejected", decided_at: r.now.toISOString() };
  const snapshot = r.snapshot;
  if (snapshot === null) throw notFound("Message");
  const state = effectiveState(snapshot, r.now);
  if (state === "withheld") throw legallyWithheld(messageId);
  if (state === "expired") throw new DomainError("SVC_EXPIRED", "The message expired while it waited for approval.", { message_id: messageId });
  throw new DomainError("SVC_RESOURCE_CONFLICT", "The message no longer waits for approval.", { reason: "not_held_for_approval", message_id: messageId, state });
}
