import type { NewAuditEntry } from "../audit/audit-entry.ts";
import { verifyCaller } from "../access/authenticate.ts";
import { callerGuardOf, type CallerGuard } from "../access/caller-guard.ts";
import type { CoreDeps } from "../deps.ts";
import { isDomainError, malformed, type DomainError, type ErrorCode, type ErrorDetails } from "../errors.ts";
import { withContext, type OperationContext } from "../operation.ts";
import type { AckMessageInput, AckMessageResponse } from "./ack-message.ts";
import { leaseRefusal } from "./lease-refusal.ts";
import { messageAuditEntry } from "./message-audit.ts";
import { parseLeaseId, parseMessageId, parseOptionalText } from "./message-fields.ts";
import { MESSAGING_LIMITS } from "./messaging-limits.ts";
import { credentialCaller } from "../access/principal.ts";

/** Most items one batch ack carries. */
export const ACK_BATCH_MAX_ITEMS = 100;

/** The body of a batch ack. */
export interface AckMessagesInput {
  items: AckMessageInput[];
}

/** The answer for one item: what POST /v1/messages/{message_id}/ack would have answered for it. */
export type AckItemResult =
  | ({ status: 200 } & AckMessageResponse)
  | { message_id: string; status: number; error: { code: ErrorCode; message: string; details?: ErrorDetails } };

/** The 200 body of a batch ack: one result per item, in item order. */
export interface AckMessagesResponse {
  results: AckItemResult[];
}

function failed(messageId: string, e: DomainError): AckItemResult {
  return { message_id: messageId, status: e.status, error: { code: e.code, message: e.message, ...(e.details === undefined ? {} : { details: e.details }) } };
}

/**
 * POST /v1/messages/ack: acknowledges up to 100 messages the caller holds, each under its own
 * live lease, in one store write. Every item is answered on its own, as the single ack would
 * answer it (status and body, or status and error with its SVC_ code): a malformed item, an
 * unknown message or a lost lease refuses that item only. A repeat with the same lease answers
 * 200 with the original acknowledged_at. An item naming a message an earlier item of the batch
 * names is refused (400 SVC_MALFORMED_REQUEST, field message_id); the earlier one is processed.
 * @throws DomainError SVC_MALFORMED_REQUEST (field items) when items is empty or holds more than 100.
 */
export async function ackMessages(deps: CoreDeps, ctx: OperationContext, input: AckMessagesInput): Promise<AckMessagesResponse> {
  const items: unknown = input.items;
  if (!Array.isArray(items) || items.length === 0 || items.length > ACK_BATCH_MAX_ITEMS) {
    throw malformed(`items must hold 1 to ${ACK_BATCH_MAX_ITEMS} acks.`, { field: "items", max: ACK_BATCH_MAX_ITEMS });
  }
  const results: (AckItemResult | null)[] = [];
  const valid: { index: number; messageId: string; leaseId: string; outcomeSummary: string | null; audit: NewAuditEntry }[] = [];
  const seen = new Set<string>();
  for (const [index, raw] of (items as AckMessageInput[]).entries()) {
    const rawId = typeof raw?.message_id === "string" ? raw.message_id : "";
    try {
      const messageId = parseMessageId(raw?.message_id);
      const leaseId = parseLeaseId(raw?.lease_id);
      const outcomeSummary = parseOptionalText(raw?.outcome_summary, "outcome_summary", MESSAGING_LIMITS.outcomeSummaryMaxLength);
      if (seen.has(messageId)) throw malformed("This message is already acknowledged by an earlier item of the batch.", { field: "message_id" });
      seen.add(messageId);
      const audit = messageAuditEntry(deps, ctx, { messageId, activity: "message.acknowledged", details: { lease_id: leaseId, ...(outcomeSummary === null ? {} : { outcome_summary: outcomeSummary }) } });
      valid.push({ index, messageId, leaseId, outcomeSummary, audit });
      results.push(null);
    } catch (e) {
      if (!isDomainError(e)) throw e;
      results.push(failed(rawId, e));
    }
  }
  if (valid.length > 0) {
    const write = (batch: typeof valid, caller: CallerGuard | null) =>
      deps.stores.messages.ackBatchIfHeld({
        workspaceId: ctx.principal.workspace.id,
        recipientId: credentialCaller(ctx.principal).account.id,
        items: batch.map(({ messageId, leaseId, outcomeSummary, audit }) => ({ messageId, leaseId, outcomeSummary, audit })),
        caller,
      });
    const written = await write(valid, callerGuardOf(ctx.principal));
    // Refusals: the caller guard may have failed. Read the caller afresh (throws its refusal); if active, the refused items are tried once more without the guard.
    const refused = valid.filter((_, k) => written[k]?.ok !== true);
    if (refused.length > 0 && credentialCaller(ctx.principal).callerCheckDeferred === true) {
      ctx = withContext(ctx, { principal: await verifyCaller(deps, ctx.principal) });
      const again = await write(refused, null);
      refused.forEach((item, j) => {
        const r = again[j];
        if (r !== undefined) written[valid.indexOf(item)] = r;
      });
    }
    const acknowledged = written.filter((r) => r?.ok === true).length;
    if (acknowledged > 0) deps.meter?.count("acknowledged", acknowledged, ctx.principal.workspace.id);
    for (const r of written) if (r?.ok === true) ctx.onMessageSettled?.({ messageId: r.message.id, recipientName: r.message.recipientName, traceparent: r.message.traceparent });
    valid.forEach((item, k) => {
      const r = written[k];
      if (r === undefined) throw new Error("ackBatchIfHeld answered fewer results than items");
      if (r.ok) {
        results[item.index] = { message_id: item.messageId, status: 200, state: "acknowledged", acknowledged_at: (r.message.acknowledgedAt ?? r.message.visibleAt).toISOString() };
        return;
      }
      const s = r.snapshot;
      if (s !== null && s.state === "acknowledged" && s.leaseId === item.leaseId && s.acknowledgedAt !== null) {
        results[item.index] = { message_id: item.messageId, status: 200, state: "acknowledged", acknowledged_at: s.acknowledgedAt.toISOString() };
        return;
      }
      results[item.index] = failed(item.messageId, leaseRefusal({ op: { kind: "ack" }, leaseId: item.leaseId, snapshot: s, now: r.now }));
    });
  }
  // A refused item is answered only after the caller was read afresh.
  if (results.some((r) => r === null || r.status !== 200)) await verifyCaller(deps, ctx.principal);
  return { results: results as AckItemResult[] };
}
