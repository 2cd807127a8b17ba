import type { CoreDeps } from "../deps.ts";
import { malformed } from "../errors.ts";
import { keysetPage } from "../cursors/paged-list.ts";
import type { OperationContext } from "../operation.ts";
import { MESSAGE_STATES, shownState, type MessageState } from "./message.ts";
import { envelopeView, type EnvelopeView } from "./message-views.ts";

/** Query of GET /v1/messages. */
export interface ListMessagesInput {
  role?: string;
  state?: string;
  recipient?: string;
  sender?: string;
  template?: string;
  search?: string;
  limit?: unknown;
  cursor?: string | null;
}

/** One message in the list: its envelope and effective state. */
export interface MessageListItem {
  envelope: EnvelopeView;
  state: MessageState;
}

const ROLES = ["sent", "received", "any"] as const;

/**
 * GET /v1/messages: the caller's messages (sent, received or any; default any), optionally
 * filtered by shown state, newest first, paged with `limit` and a signed `cursor` bound to
 * the caller and every filter; `recipient`, `sender` and `template` match the envelope exactly
 * (names as they were at send time); `search` matches the message id or the correlation id exactly. With a person's session: every message of the workspace (role
 * has no effect).
 * @throws DomainError SVC_MALFORMED_REQUEST (role, state, limit), SVC_CURSOR_EXPIRED.
 */
export async function listMessages(deps: CoreDeps, ctx: OperationContext, input: ListMessagesInput): Promise<{ items: MessageListItem[]; next_cursor: string | null }> {
  const role = input.role ?? "any";
  if (!(ROLES as readonly string[]).includes(role)) throw malformed(`role must be one of ${ROLES.join(", ")}.`, { field: "role", allowed: [...ROLES] });
  const state = input.state ?? null;
  if (state !== null && !(MESSAGE_STATES as readonly string[]).includes(state)) throw malformed(`state must be one of ${MESSAGE_STATES.join(", ")}.`, { field: "state", allowed: [...MESSAGE_STATES] });
  const workspaceId = ctx.principal.workspace.id;
  // A person's session covers the whole workspace (DESIGN §2b): no participant filter.
  const accountId = ctx.principal.kind === "person" ? null : ctx.principal.account.id;
  const match = { recipientName: input.recipient ?? null, senderName: input.sender ?? null, template: input.template ?? null, search: input.search ?? null };
  let now = new Date(0);
  return keysetPage(
    deps,
    ctx,
    { resource: "messages", filters: { account: accountId, role, state, ...match }, limit: input.limit, cursor: input.cursor },
    async (after, limit) => {
      const [rows, dbNow] = await Promise.all([deps.stores.messages.listForParticipant({ workspaceId, accountId, role: role as (typeof ROLES)[number], state: state as MessageState | null, match, after, limit }), deps.stores.messages.now()]);
      now = dbNow;
      return rows;
    },
    (m) => ({ envelope: envelopeView(m), state: shownState(m, now) }),
  );
}
