import { validTraceparent } from "../telemetry/traceparent.ts";
import { Value } from "@sinclair/typebox/value";
import type { AiAccount } from "../access/model.ts";
import type { CoreDeps } from "../deps.ts";
import { DomainError, malformed } from "../errors.ts";
import type { OperationContext } from "../operation.ts";
import { findTemplate } from "../templates/built-in-templates.ts";
import { parseDurationMs } from "../time/duration.ts";
import { PRIORITIES, type NewMessage, type Priority } from "./message.ts";
import { parseOptionalText } from "./message-fields.ts";
import { MESSAGING_LIMITS } from "./messaging-limits.ts";
import { checkSendGuards } from "../screening/check-send-guards.ts";
import { resolveRecipient } from "./recipient-cache.ts";
import { resolveReplyTo } from "./threads.ts";
import { credentialCaller } from "../access/principal.ts";

/** The body of a send (and of validate): REST `{ envelope, payload }`. */
export interface SendMessageInput {
  envelope: {
    recipient: { friendly_name: string };
    template: string;
    priority?: string;
    correlation_id?: string | null;
    ttl?: string;
    deliver_after?: string;
    /** The id of a message the sender sent or received that this one answers (DESIGN §2c). */
    reply_to?: string | null;
  };
  payload?: unknown;
}

/** A send that passed every check: the message to store and the resolved recipient. */
export interface PreparedSend {
  message: NewMessage;
  recipient: AiAccount;
  /** The recipient's resolution came from the per-process cache (the write re-checks it). */
  recipientCached: boolean;
}

/**
 * Every check of a send, without writing: field limits, recipient resolution in the sender's
 * workspace, template and payload. Shared by send and validate so the dry run is the real path.
 * The sender is always the principal's account. A `reply_to` must name a message the sender
 * sent or received (one more read, only then). Last come the guard rails (`checkSendGuards`:
 * sanctions, policy gate, monthly plan cap).
 * - `dryRun` (validate): resolves the recipient afresh, reads the policy gate, and does not
 *   count the message towards the monthly cap.
 * - otherwise (send): the recipient's resolution may come from the per-process cache
 *   (`resolveRecipient`; `freshRecipient` forbids it) and the policy gate is left to the write,
 *   which checks both in its own statement (`MessageStore.acceptSend`): one database round trip
 *   for the whole send when the cache holds the recipient.
 * @throws DomainError SVC_MALFORMED_REQUEST (details.field, or details.errors for the payload),
 *   SVC_RECIPIENT_RESOLUTION_FAILED, SVC_RESOURCE_NOT_FOUND (envelope.reply_to), and the guard refusals (SVC_SANCTIONS_BLOCKED,
 *   SVC_SANCTIONS_REVIEW_PENDING, SVC_POLICY_NOT_ACKNOWLEDGED, SVC_PLAN_LIMIT_EXCEEDED).
 */
export async function prepareSend(deps: CoreDeps, ctx: OperationContext, input: SendMessageInput, opts: { dryRun?: boolean; freshRecipient?: boolean } = {}): Promise<PreparedSend> {
  const dryRun = opts.dryRun ?? false;
  const env = input.envelope;
  const priority = parsePriority(env.priority);
  const correlationId = parseOptionalText(env.correlation_id, "envelope.correlation_id", MESSAGING_LIMITS.correlationIdMaxLength);
  const ttlMs = env.ttl === undefined ? MESSAGING_LIMITS.ttlDefaultMs : parseDurationMs(env.ttl, "envelope.ttl", { minMs: MESSAGING_LIMITS.ttlMinMs, maxMs: MESSAGING_LIMITS.ttlMaxMs });
  const deliverAfterMs = env.deliver_after === undefined ? 0 : parseDurationMs(env.deliver_after, "envelope.deliver_after", { minMs: 0, maxMs: MESSAGING_LIMITS.deliverAfterMaxMs });
  if (deliverAfterMs >= ttlMs) throw malformed("envelope.deliver_after must be shorter than the ttl.", { field: "envelope.deliver_after" });
  const friendlyName: unknown = env.recipient?.friendly_name;
  if (typeof friendlyName !== "string" || friendlyName.length === 0 || friendlyName.length > 200) throw malformed("envelope.recipient.friendly_name must be a friendly name.", { field: "envelope.recipient.friendly_name" });
  const template = typeof env.template === "string" ? findTemplate(env.template) : undefined;
  if (!template) throw malformed("Unknown template; GET /v1/templates lists them.", { field: "envelope.template" });

  const workspaceId = ctx.principal.workspace.id;
  const { account: recipient, cached: recipientCached } = await resolveRecipient(deps, { workspaceId, friendlyName, fresh: dryRun || (opts.freshRecipient ?? false) });
  if (recipient === null) {
    throw new DomainError("SVC_RECIPIENT_RESOLUTION_FAILED", "The recipient could not be resolved.", { field: "envelope.recipient.friendly_name" });
  }

  if (!Value.Check(template.schema, input.payload)) {
    const errors: { path: string; message: string }[] = [];
    for (const e of Value.Errors(template.schema, input.payload)) {
      errors.push({ path: `/payload${e.path}`, message: e.message });
      if (errors.length >= 10) break;
    }
    throw malformed(`The payload does not satisfy template ${template.name}.`, { field: "payload", template: template.name, errors });
  }

  const sender = credentialCaller(ctx.principal).account;
  const thread = await resolveReplyTo(deps, { workspaceId, senderId: sender.id, replyTo: env.reply_to });

  await checkSendGuards(deps, ctx, recipient, { dryRun, policyGateInWrite: !dryRun });

  const acceptedAt = deps.clock.now();
  return {
    recipient,
    recipientCached,
    message: {
      id: deps.ids.next(),
      workspaceId,
      senderId: sender.id,
      senderName: sender.friendlyName,
      recipientId: recipient.id,
      recipientName: recipient.friendlyName,
      template: template.name,
      priority,
      correlationId,
      payload: input.payload,
      acceptedAt,
      visibleAt: new Date(acceptedAt.getTime() + deliverAfterMs),
      expiresAt: new Date(acceptedAt.getTime() + ttlMs),
      // What the edge hands in is client-controlled: only a valid traceparent is stored.
      traceparent: validTraceparent(ctx.traceparent),
      inReplyTo: thread.inReplyTo,
      threadId: thread.threadId,
    },
  };
}

function parsePriority(value: unknown): Priority {
  if (value === undefined || value === null) return "normal";
  if (typeof value === "string" && (PRIORITIES as readonly string[]).includes(value)) return value as Priority;
  throw malformed(`envelope.priority must be one of ${PRIORITIES.join(", ")}.`, { field: "envelope.priority", allowed: [...PRIORITIES] });
}
