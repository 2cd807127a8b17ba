import type { CoreDeps } from "../deps.ts";
import { malformed } from "../errors.ts";
import type { OperationContext } from "../operation.ts";
import { parseDurationMs } from "../time/duration.ts";
import { leaseAlreadyCovers, leaseRefusal } from "./lease-refusal.ts";
import { messageAuditEntry } from "./message-audit.ts";
import { parseLeaseId, parseMessageId } from "./message-fields.ts";
import { MESSAGING_LIMITS } from "./messaging-limits.ts";
import { credentialCaller } from "../access/principal.ts";

/** The body (plus path id) of extend_lease. */
export interface ExtendLeaseInput {
  message_id: string;
  lease_id: string;
  visibility_timeout: string;
}

/** The 200 body of extend_lease (DESIGN §2). */
export interface ExtendLeaseResponse {
  lease: { lease_id: string; lease_expires_at: string };
  extensions: number;
}

/**
 * POST /v1/messages/{message_id}/extend_lease: moves the held lease's expiry to now +
 * `visibility_timeout` (PT10S..PT600S), clamped so it never passes claim time + 1 h. One per
 * 10 s per message, at most 30 per lease, never past the message's expiry. When the current
 * lease already reaches at least that far, answers with it unchanged (nothing written, not
 * counted).
 * @throws DomainError SVC_MALFORMED_REQUEST (lease_id, visibility_timeout),
 *   SVC_EXTEND_RATE_LIMITED (retryAfterSeconds), SVC_LEASE_EXTENSION_LIMIT_EXCEEDED,
 *   SVC_LEASE_AT_CUMULATIVE_CEILING, SVC_LEASE_AT_TTL_CEILING and the other refusals of
 *   `leaseRefusal`.
 */
export async function extendLease(deps: CoreDeps, ctx: OperationContext, input: ExtendLeaseInput): Promise<ExtendLeaseResponse> {
  const messageId = parseMessageId(input.message_id);
  const leaseId = parseLeaseId(input.lease_id);
  if (input.visibility_timeout === undefined) throw malformed("visibility_timeout is required.", { field: "visibility_timeout" });
  const visibilityTimeoutMs = parseDurationMs(input.visibility_timeout, "visibility_timeout", { minMs: MESSAGING_LIMITS.visibilityTimeoutMinMs, maxMs: MESSAGING_LIMITS.visibilityTimeoutMaxMs });
  const audit = messageAuditEntry(deps, ctx, { messageId, activity: "message.lease_extended", details: { lease_id: leaseId, visibility_timeout_ms: visibilityTimeoutMs } });
  const r = await deps.stores.messages.extendIfHeld({
    workspaceId: ctx.principal.workspace.id,
    messageId,
    recipientId: credentialCaller(ctx.principal).account.id,
    leaseId,
    visibilityTimeoutMs,
    minIntervalMs: MESSAGING_LIMITS.extendMinIntervalMs,
    maxExtensions: MESSAGING_LIMITS.maxExtensions,
    cumulativeCapMs: MESSAGING_LIMITS.leaseCumulativeCapMs,
    audit,
  });
  if (r.ok) return { lease: { lease_id: leaseId, lease_expires_at: r.message.visibleAt.toISOString() }, extensions: r.message.leaseExtensions };
  const refusal = leaseRefusal({ op: { kind: "extend", visibilityTimeoutMs }, leaseId, snapshot: r.snapshot, now: r.now });
  // Every real refusal (rate, count, ceilings) comes first; only a request the current lease
  // already covers is answered with that lease instead of an error.
  if (refusal.code === "SVC_MALFORMED_REQUEST" && r.snapshot && leaseAlreadyCovers({ leaseId, snapshot: r.snapshot, now: r.now, visibilityTimeoutMs })) {
    return { lease: { lease_id: leaseId, lease_expires_at: r.snapshot.visibleAt.toISOString() }, extensions: r.snapshot.leaseExtensions };
  }
  throw refusal;
}
