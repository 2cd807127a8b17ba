import type { CoreDeps } from "../deps.ts";
import { keysetPage } from "../cursors/paged-list.ts";
import { malformed, notFound } from "../errors.ts";
import { isUlid } from "../ids.ts";
import type { OperationContext } from "../operation.ts";
import { effectiveState, threadIdOf } from "./message.ts";
import type { MessageListItem } from "./list-messages.ts";
import { envelopeView } from "./message-views.ts";

// Reply threads (DESIGN §2c): a send's `reply_to` names a message the sender sent or received;
// the reply carries `in_reply_to` and the thread's id (its first message's). Every message is
// in a thread: one sent without `reply_to` starts its own, whose id is the message's.

/**
 * An id naming a thread or a message a reply answers: a ULID, or the record cannot exist.
 * @throws DomainError SVC_MALFORMED_REQUEST (not a string), SVC_RESOURCE_NOT_FOUND (not a ULID).
 */
function parseRecordId(value: unknown, field: string, resource: string): string {
  if (typeof value !== "string") throw malformed(`${field} must be a message id.`, { field });
  if (!isUlid(value)) throw notFound(resource);
  return value;
}

/**
 * The thread placement of a reply: `reply_to` must name a message of the workspace the sender
 * sent or received (else, or when it is not a ULID, 404). Absent or null: the message starts
 * its own thread. Reads the store only when `reply_to` is given.
 * @throws DomainError SVC_MALFORMED_REQUEST (field envelope.reply_to), SVC_RESOURCE_NOT_FOUND.
 */
export async function resolveReplyTo(deps: CoreDeps, p: { workspaceId: string; senderId: string; replyTo: unknown }): Promise<{ inReplyTo: string | null; threadId: string | null }> {
  if (p.replyTo === undefined || p.replyTo === null) return { inReplyTo: null, threadId: null };
  const messageId = parseRecordId(p.replyTo, "envelope.reply_to", "Message");
  const answered = await deps.stores.messages.findForParticipant({ workspaceId: p.workspaceId, messageId, accountId: p.senderId });
  if (answered === null) throw notFound("Message");
  return { inReplyTo: answered.id, threadId: threadIdOf(answered) };
}

/**
 * The thread a get-pending is limited to, when one is named: the caller must have sent or
 * received one of its messages (else 404, as for a thread of another workspace). One bounded
 * read, only when `thread_id` is given.
 * @throws DomainError SVC_MALFORMED_REQUEST (field thread_id), SVC_RESOURCE_NOT_FOUND.
 */
export async function resolveClaimThread(deps: CoreDeps, p: { workspaceId: string; accountId: string; threadId: unknown }): Promise<string | null> {
  if (p.threadId === undefined || p.threadId === null) return null;
  const threadId = parseRecordId(p.threadId, "thread_id", "Thread");
  const seen = await deps.stores.messages.listThread({ workspaceId: p.workspaceId, threadId, accountId: p.accountId, after: null, limit: 0 });
  if (seen.length === 0) throw notFound("Thread");
  return threadId;
}

/** Query of GET /v1/threads/{thread_id}. */
export interface GetThreadInput {
  thread_id: string;
  limit?: unknown;
  cursor?: string | null;
}

/**
 * GET /v1/threads/{thread_id}: the thread's messages the caller sent or received (a person's
 * session: every message of the thread), oldest first, paged like the message list. A thread
 * with none of them does not exist for the caller (404).
 * @throws DomainError SVC_RESOURCE_NOT_FOUND, SVC_MALFORMED_REQUEST (limit), SVC_CURSOR_EXPIRED.
 */
export async function getThread(deps: CoreDeps, ctx: OperationContext, input: GetThreadInput): Promise<{ thread_id: string; items: MessageListItem[]; next_cursor: string | null }> {
  const threadId = parseRecordId(input.thread_id, "thread_id", "Thread");
  const workspaceId = ctx.principal.workspace.id;
  const accountId = ctx.principal.kind === "person" ? null : ctx.principal.account.id;
  let now = new Date(0);
  const page = await keysetPage(
    deps,
    ctx,
    { resource: "thread", filters: { account: accountId, thread: threadId }, limit: input.limit, cursor: input.cursor },
    async (after, limit) => {
      const [rows, dbNow] = await Promise.all([deps.stores.messages.listThread({ workspaceId, threadId, accountId, after, limit }), deps.stores.messages.now()]);
      now = dbNow;
      return rows;
    },
    (m) => ({ envelope: envelopeView(m), state: effectiveState(m, now) }),
  );
  // Only the first page can tell that the caller has no message of the thread.
  if (page.items.length === 0 && (input.cursor ?? null) === null) throw notFound("Thread");
  return { thread_id: threadId, ...page };
}
