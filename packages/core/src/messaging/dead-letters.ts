import type { CoreDeps } from "../deps.ts";
import { notFound } from "../errors.ts";
import { keysetPage } from "../cursors/paged-list.ts";
import { runIdempotent } from "../idempotency/run-idempotent.ts";
import type { OperationContext, OperationResult } from "../operation.ts";
import { messageAuditEntry } from "./message-audit.ts";
import { parseMessageId } from "./message-fields.ts";
import { envelopeView, type EnvelopeView } from "./message-views.ts";

// Dead letters are an administrative surface (DESIGN §2): administrative-tier credentials of
// the workspace list, release and purge them. No scope gates them, because the spec's
// dead-letter scope (manage_dlq) is retired and gates nothing.

/** A dead-lettered message in the list. */
export interface DeadLetterItem {
  envelope: EnvelopeView;
  state: "dead_lettered";
  dead_lettered_at: string | null;
}

/**
 * GET /v1/dead-letters: the workspace's dead-lettered messages, newest first, paged.
 * @throws DomainError SVC_MALFORMED_REQUEST (limit), SVC_CURSOR_EXPIRED.
 */
export async function listDeadLetters(deps: CoreDeps, ctx: OperationContext, input: { limit?: unknown; cursor?: string | null }): Promise<{ items: DeadLetterItem[]; next_cursor: string | null }> {
  const workspaceId = ctx.principal.workspace.id;
  const page = { resource: "dead-letters", filters: {}, limit: input.limit, cursor: input.cursor };
  return keysetPage(deps, ctx, page, (after, limit) => deps.stores.messages.listDeadLettered({ workspaceId, after, limit }), (m) => ({ envelope: envelopeView(m), state: "dead_lettered" as const, dead_lettered_at: m.deadLetteredAt?.toISOString() ?? null }));
}

/**
 * POST /v1/dead-letters/{message_id}/release: returns a dead-lettered message to pending with
 * its delivery count reset, visible at once. Honours an Idempotency-Key when sent.
 * Body `{ message_id, state: "pending", available_at }`.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND when no dead-lettered message has that id,
 *   SVC_IDEMPOTENCY_CONFLICT.
 */
export async function releaseDeadLetter(deps: CoreDeps, ctx: OperationContext, input: { message_id: string }): Promise<OperationResult> {
  const messageId = parseMessageId(input.message_id);
  return runIdempotent(deps, ctx, async (stores) => {
    const m = await stores.messages.release({ workspaceId: ctx.principal.workspace.id, messageId, audit: messageAuditEntry(deps, ctx, { messageId, activity: "message.released" }) });
    if (!m) throw notFound("Dead-lettered message");
    return { status: 200, body: { message_id: m.id, state: "pending", available_at: m.visibleAt.toISOString() } };
  });
}

/**
 * POST /v1/dead-letters/{message_id}/purge: deletes a dead-lettered message for good (its
 * audit rows stay). Honours an Idempotency-Key when sent. Body `{ message_id, purged: true }`.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND when no dead-lettered message has that id,
 *   SVC_IDEMPOTENCY_CONFLICT.
 */
export async function purgeDeadLetter(deps: CoreDeps, ctx: OperationContext, input: { message_id: string }): Promise<OperationResult> {
  const messageId = parseMessageId(input.message_id);
  return runIdempotent(deps, ctx, async (stores) => {
    const purged = await stores.messages.purge({ workspaceId: ctx.principal.workspace.id, messageId, audit: messageAuditEntry(deps, ctx, { messageId, activity: "message.purged" }) });
    if (!purged) throw notFound("Dead-lettered message");
    return { status: 200, body: { message_id: messageId, purged: true } };
  });
}
