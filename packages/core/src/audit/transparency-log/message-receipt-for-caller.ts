import type { Principal } from "../../access/model.ts";
import { readsAuditLog } from "../audit-reader.ts";
import type { CoreDeps } from "../../deps.ts";
import { notFound } from "../../errors.ts";
import { parseMessageId } from "../../messaging/message-fields.ts";
import { messageReceipt } from "./audit-proofs.ts";
import { auditLogKeys } from "./log-key.ts";
import type { MessageReceiptView } from "./proof-views.ts";

/**
 * A message's receipt for the caller (GET /v1/messages/{id}/receipt), with the log's verifier
 * keys embedded (`verifier_keys`: the key document's lines). The caller sees the receipt of a
 * message its AI account sent or received; whoever may read the whole audit log (a person's
 * session, an administrative credential, scope view_audit_log) sees any message's of the
 * workspace, since its `message.sent` row is already theirs to read. A message withheld after a
 * legal notice keeps its receipt: the record carries the envelope's metadata, never the payload.
 * @throws DomainError SVC_MALFORMED_REQUEST for an id that is not a ULID; SVC_RESOURCE_NOT_FOUND
 * for a message of another workspace or one the caller may not see (as for an unknown id);
 * SVC_RESOURCE_CONFLICT (`details.reason: "not_sealed_yet"`) until the send is in a checkpoint.
 */
export async function messageReceiptForCaller(deps: CoreDeps, principal: Principal, input: { message_id: string }): Promise<MessageReceiptView> {
  const messageId = parseMessageId(input.message_id);
  const workspaceId = principal.workspace.id;
  const accountId = principal.kind === "person" || readsAuditLog(principal) ? null : principal.account.id;
  const message = await deps.stores.messages.findForParticipant({ workspaceId, messageId, accountId });
  if (message === null) throw notFound("Message");
  const receipt = await messageReceipt(deps, { workspaceId, messageId });
  return { ...receipt, verifier_keys: auditLogKeys(deps).verifierKeys };
}
