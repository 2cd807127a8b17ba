import { Type } from "@sinclair/typebox";
import { MESSAGE_STATES, PRIORITIES } from "./message.ts";
import { ackMessage } from "./ack-message.ts";
import { ACK_BATCH_MAX_ITEMS, ackMessages } from "./ack-messages.ts";
import { claimMessages } from "./claim-messages.ts";
import { countWaitingMessages } from "./count-waiting.ts";
import { listDeadLetters, purgeDeadLetter, releaseDeadLetter } from "./dead-letters.ts";
import { extendLease } from "./extend-lease.ts";
import { getMessage, getMessagePayload } from "./get-message.ts";
import { handOffMessage } from "./hand-off-message.ts";
import { listMessages } from "./list-messages.ts";
import { listRecipients } from "./list-recipients.ts";
import { nackMessage } from "./nack-message.ts";
import { sendMessage } from "./send-message.ts";
import { getThread } from "./threads.ts";
import { APPROVAL_AUTH, decideApproval, getApproval, listApprovals } from "./approvals.ts";
import { defineWriteOperation } from "../idempotency/define-write-operation.ts";
import { validateMessage } from "./validate-message.ts";
import { getTemplate } from "../templates/get-template.ts";
import { listTemplates } from "../templates/list-templates.ts";
import { defineOperation } from "../operation.ts";

// ---------------------------------------------------------------------------------------------
// Schemas. Types are exact; ranges, durations and ids are checked by the use cases so that each
// failure carries its own code and details.field.
// ---------------------------------------------------------------------------------------------

const Timestamp = (description: string) => Type.String({ format: "date-time", description });
const Duration = (description: string) => Type.String({ maxLength: 40, description });
const MessageId = Type.String({ maxLength: 64, description: "ULID of the message." });
const LeaseId = Type.String({ minLength: 1, maxLength: 128, description: "lease.lease_id of the claim that delivered the message." });
const Limit = Type.Optional(Type.Union([Type.Integer(), Type.String()], { description: "Page size: default 50, clamped to 1..100; not an integer gives 400." }));
const Cursor = Type.Optional(Type.String({ maxLength: 2048, description: "next_cursor of the previous page (bound to this query; expires after 24 hours)." }));
const NextCursor = Type.Union([Type.String(), Type.Null()], { description: "Cursor of the next page, or null on the last page." });
const PrioritySchema = Type.Union(PRIORITIES.map((p) => Type.Literal(p)), { description: "Dequeue priority: low, normal (default), high or urgent." });
const StateSchema = Type.Union(MESSAGE_STATES.map((s) => Type.Literal(s)), { description: "pending, held (under a live lease), acknowledged, expired, dead_lettered, withheld, held_for_approval or rejected." });
const ApprovalSchema = Type.Object(
  {
    policy_id: Type.String(),
    policy_name: Type.Union([Type.String(), Type.Null()]),
    require_step_up: Type.Boolean({ description: "A person's session must step up (MFA) to decide." }),
    approvers: Type.String({ description: "Who may approve or reject it." }),
  },
  { description: "The approval policy that held it." },
);

const AccountRef = (description: string) =>
  Type.Object({ ai_account_id: Type.String({ description: "ULID of the AI account." }), friendly_name: Type.String({ description: "Its friendly name." }) }, { description });

const EnvelopeSchema = Type.Object(
  {
    message_id: Type.String({ description: "ULID of the message." }),
    sender: AccountRef("The sending AI account (always the sender's credential)."),
    recipient: AccountRef("The addressed AI account."),
    template: Type.String({ description: "The template the payload satisfies." }),
    priority: PrioritySchema,
    correlation_id: Type.Union([Type.String(), Type.Null()], { description: "The sender's correlation label, or null." }),
    accepted_at: Timestamp("When the message was accepted."),
    expires_at: Timestamp("When the message expires."),
    delivery_count: Type.Integer({ description: "Claims so far (each claim counts one delivery)." }),
    traceparent: Type.Union([Type.String(), Type.Null()], { description: "The W3C traceparent stored with the message at its send (the sender's trace), or null; the same on every delivery." }),
    in_reply_to: Type.Union([Type.String(), Type.Null()], { description: "The message this one answers, or null." }),
    thread_id: Type.String({ description: "Its thread: the first message's id." }),
  },
  { description: "The envelope of a stored message." },
);

const SendBody = Type.Object(
  {
    envelope: Type.Object(
      {
        recipient: Type.Object({ friendly_name: Type.String({ minLength: 1, maxLength: 200, description: "Friendly name of the recipient AI account in your workspace (see list_recipients)." }) }, { description: "The addressee." }),
        template: Type.String({ minLength: 1, maxLength: 200, description: "Template name (see list_templates); the payload must satisfy its JSON Schema." }),
        priority: Type.Optional(PrioritySchema),
        correlation_id: Type.Optional(Type.Union([Type.String({ maxLength: 128 }), Type.Null()], { description: "Your correlation label, up to 128 characters." })),
        ttl: Type.Optional(Duration("Time to live, ISO 8601 duration (e.g. P1D, PT30M): default P7D, at most P14D.")),
        deliver_after: Type.Optional(Duration("Delay before the message can be claimed, ISO 8601 duration: default PT0S; must be shorter than the ttl.")),
        reply_to: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()], { description: "Id of a message you sent or received that this one answers (joins its thread)." })),
      },
      { description: "Addressing and delivery options." },
    ),
    payload: Type.Object({}, { additionalProperties: true, description: "The message content: an object satisfying the template's JSON Schema (template directive: directive_kind, summary, instructions, all strings)." }),
  },
  { description: "A message to send." },
);

const LeaseSchema = Type.Object(
  { lease_id: Type.String({ description: "Pass it to ack, nack or extend_lease." }), lease_expires_at: Timestamp("When the lease runs out; afterwards the message is redelivered.") },
  { description: "The lease the message is held under." },
);

const TimelineEntrySchema = Type.Object({
  at: Timestamp("When it happened."),
  activity: Type.String({ description: "message.sent, message.claimed, message.acknowledged, message.nacked, message.lease_extended, message.dead_lettered, message.released, message.purged, message.expired, message.handed_off (details.from and details.to name both accounts), message.held_for_approval, message.approved or message.rejected." }),
  actor_ai_account_id: Type.Union([Type.String(), Type.Null()], { description: "The AI account that caused it, or null for the service." }),
  details: Type.Record(Type.String(), Type.Unknown(), { description: "Specifics of the activity." }),
});

const TemplateListItemSchema = Type.Object({ name: Type.String(), description: Type.String() });
const MessageIdPath = Type.Object({ message_id: MessageId });

const messageRoute = (scope: "send" | "validate" | "get_pending" | "ack" | "nack" | "list_recipients" | "list_templates" | "get_template" | null) => ({ kind: "credential" as const, tier: "operational" as const, scope });
const administrative = { kind: "credential" as const, tier: "administrative" as const, scope: null };

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

const send = defineOperation({
  name: "send",
  guardsCaller: true,
  summary: "Send a message to an AI account of your workspace, addressed by friendly name; the payload must satisfy the named template.",
  http: { method: "POST", path: "/v1/messages/send" },
  auth: messageRoute("send"),
  idempotency: "required",
  mutates: true,
  input: SendBody,
  output: Type.Object({
    message_id: Type.String({ description: "ULID of the new message." }),
    state: Type.Union([Type.Literal("pending"), Type.Literal("held_for_approval")], { description: "held_for_approval: an approval policy holds it until a person approves it." }),
    accepted_at: Timestamp("When it was accepted."),
    expires_at: Timestamp("When it expires."),
    recipient: AccountRef("The resolved recipient."),
    thread_id: Type.String({ description: "Its thread (its own id unless reply_to was given)." }),
    approval: Type.Optional(Type.Object({ policy_id: Type.String(), policy_name: Type.String() }, { description: "The policy holding it." })),
  }),
  successStatus: 201,
  handler: (deps, ctx, input) => sendMessage(deps, ctx, input),
});

const validate = defineOperation({
  name: "validate",
  summary: "Check a message exactly as send would (recipient, template, payload, limits) without sending it or spending an idempotency key.",
  http: { method: "POST", path: "/v1/messages/validate" },
  auth: messageRoute("validate"),
  idempotency: "none",
  mutates: false,
  // spec §Messaging: validate spends no rate-limit token.
  rateLimitCost: 0,
  input: SendBody,
  output: Type.Object({
    valid: Type.Literal(true),
    recipient: AccountRef("The resolved recipient."),
    template: Type.String(),
    held_for_approval: Type.Boolean({ description: "True when an approval policy would hold the send." }),
    approval: Type.Optional(Type.Object({ policy_id: Type.String(), policy_name: Type.String() }, { description: "The policy that would hold it." })),
  }),
  successStatus: 200,
  handler: async (deps, ctx, input) => ({ status: 200, body: await validateMessage(deps, ctx, input) }),
});

const getPending = defineOperation({
  name: "get_pending",
  guardsCaller: true,
  summary: "Claim your pending messages under a time-limited lease (highest priority first, then oldest); optionally long-poll until one arrives.",
  http: { method: "POST", path: "/v1/messages/get-pending" },
  auth: messageRoute("get_pending"),
  idempotency: "none",
  mutates: true,
  input: Type.Object({
    max: Type.Optional(Type.Integer({ description: "Most messages to claim: 1 to 100, default 10." })),
    visibility_timeout: Type.Optional(Duration("Lease length, ISO 8601 duration: PT10S to PT600S, default PT120S.")),
    wait: Type.Optional(Duration("Long-poll up to this long when nothing is pending, ISO 8601 duration: PT0S (default) to PT20S.")),
    thread_id: Type.Optional(Type.Union([Type.String({ maxLength: 64 }), Type.Null()], { description: "Claim only this thread's messages (wait for a reply)." })),
  }),
  output: Type.Object({ items: Type.Array(Type.Object({ envelope: EnvelopeSchema, payload: Type.Unknown({ description: "The message content." }), lease: LeaseSchema })) }),
  successStatus: 200,
  handler: async (deps, ctx, input) => ({ status: 200, body: await claimMessages(deps, ctx, input) }),
});

const ack = defineOperation({
  name: "ack",
  guardsCaller: true,
  summary: "Acknowledge a message you hold under a live lease (it is done); repeating with the same lease returns the same answer.",
  http: { method: "POST", path: "/v1/messages/{message_id}/ack" },
  auth: messageRoute("ack"),
  idempotency: "none",
  mutates: true,
  input: Type.Object({
    message_id: MessageId,
    lease_id: LeaseId,
    outcome_summary: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "What came of the message, up to 2000 characters." })),
  }),
  output: Type.Object({ message_id: Type.String(), state: Type.Literal("acknowledged"), acknowledged_at: Timestamp("When it was acknowledged.") }),
  successStatus: 200,
  handler: async (deps, ctx, input) => ({ status: 200, body: await ackMessage(deps, ctx, input) }),
});

const ackBatch = defineOperation({
  name: "ack_batch",
  guardsCaller: true,
  summary: `Acknowledge up to ${ACK_BATCH_MAX_ITEMS} messages you hold, each under its own live lease, in one request; each item is answered on its own, as ack would answer it.`,
  http: { method: "POST", path: "/v1/messages/ack" },
  auth: messageRoute("ack"),
  idempotency: "none",
  mutates: true,
  input: Type.Object({
    items: Type.Array(
      Type.Object({
        message_id: Type.String({ description: "ULID of the message." }),
        lease_id: Type.String({ description: "lease.lease_id of the claim that delivered the message." }),
        outcome_summary: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "What came of the message, up to 2000 characters." })),
      }),
      { description: `The acks, 1 to ${ACK_BATCH_MAX_ITEMS}; a message may appear once.` },
    ),
  }),
  output: Type.Object({
    results: Type.Array(
      Type.Union([
        Type.Object({ message_id: Type.String(), status: Type.Literal(200), state: Type.Literal("acknowledged"), acknowledged_at: Timestamp("When it was acknowledged.") }),
        Type.Object({
          message_id: Type.String(),
          status: Type.Integer({ description: "The HTTP status ack would have answered for this item." }),
          error: Type.Object({ code: Type.String(), message: Type.String(), details: Type.Optional(Type.Record(Type.String(), Type.Unknown())) }),
        }),
      ]),
      { description: "One result per item, in item order." },
    ),
  }),
  successStatus: 200,
  handler: async (deps, ctx, input) => ({ status: 200, body: await ackMessages(deps, ctx, input) }),
});

const nack = defineOperation({
  name: "nack",
  summary: "Decline a message you hold; it returns to pending after redeliver_after. At most one nack per 30 seconds per message.",
  http: { method: "POST", path: "/v1/messages/{message_id}/nack" },
  auth: messageRoute("nack"),
  idempotency: "none",
  mutates: true,
  input: Type.Object({
    message_id: MessageId,
    lease_id: LeaseId,
    redeliver_after: Type.Optional(Duration("When the message returns, ISO 8601 duration from now: default PT0S; must fall before the message expires.")),
    reason: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "Why it was declined, up to 1000 characters." })),
  }),
  output: Type.Object({ message_id: Type.String(), state: Type.Literal("pending"), available_at: Timestamp("When it can be claimed again.") }),
  successStatus: 200,
  handler: async (deps, ctx, input) => ({ status: 200, body: await nackMessage(deps, ctx, input) }),
});

const extend = defineOperation({
  name: "extend_lease",
  summary: "Extend the lease on a message you hold to now + visibility_timeout (one per 10 s, at most 30, never past claim time + 1 h or the message's expiry).",
  http: { method: "POST", path: "/v1/messages/{message_id}/extend_lease" },
  auth: messageRoute("ack"),
  idempotency: "none",
  mutates: true,
  input: Type.Object({
    message_id: MessageId,
    lease_id: LeaseId,
    visibility_timeout: Duration("New lease length from now, ISO 8601 duration: PT10S to PT600S."),
  }),
  output: Type.Object({ lease: LeaseSchema, extensions: Type.Integer({ description: "Extensions of this lease so far (at most 30)." }) }),
  successStatus: 200,
  handler: async (deps, ctx, input) => ({ status: 200, body: await extendLease(deps, ctx, input) }),
});

const handOff = defineOperation({
  name: "hand_off",
  summary: "Hand a message you hold under a live lease to another AI account of your workspace: your lease ends and it becomes claimable by that account alone, its delivery count kept.",
  http: { method: "POST", path: "/v1/messages/{message_id}/hand-off" },
  auth: messageRoute("ack"),
  idempotency: "none",
  mutates: true,
  input: Type.Object({
    message_id: MessageId,
    lease_id: LeaseId,
    to: Type.Object({ friendly_name: Type.String({ minLength: 1, maxLength: 200, description: "Friendly name of the AI account to hand it to (not yourself)." }) }, { description: "The new recipient." }),
    note: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "Why it is handed on, up to 1000 characters (in the timeline)." })),
  }),
  output: Type.Object({
    message_id: Type.String(),
    state: Type.Literal("pending"),
    recipient: AccountRef("The new recipient."),
    delivery_count: Type.Integer({ description: "Claims so far, kept across the hand-off." }),
    handed_off_at: Timestamp("When it was handed off (claimable by the new recipient from then)."),
  }),
  successStatus: 200,
  handler: async (deps, ctx, input) => ({ status: 200, body: await handOffMessage(deps, ctx, input) }),
});

const listMessagesOp = defineOperation({
  name: "list_messages",
  summary: "List the messages you sent or received, newest first, with their state.",
  http: { method: "GET", path: "/v1/messages", query: ["role", "state", "recipient", "sender", "template", "search", "limit", "cursor"] },
  auth: messageRoute(null),
  idempotency: "none",
  mutates: false,
  input: Type.Object({
    role: Type.Optional(Type.Union([Type.Literal("sent"), Type.Literal("received"), Type.Literal("any")], { description: "Messages you sent, received, or both (default any)." })),
    state: Type.Optional(StateSchema),
    recipient: Type.Optional(Type.String({ minLength: 1, maxLength: 63, description: "Only messages to this friendly name (as at send time)." })),
    sender: Type.Optional(Type.String({ minLength: 1, maxLength: 63, description: "Only messages from this friendly name (as at send time)." })),
    template: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: "Only messages of this template." })),
    search: Type.Optional(Type.String({ minLength: 1, maxLength: 128, description: "Only the message with this id, or the messages with this correlation id (exact)." })),
    limit: Limit,
    cursor: Cursor,
  }),
  output: Type.Object({ items: Type.Array(Type.Object({ envelope: EnvelopeSchema, state: StateSchema })), next_cursor: NextCursor }),
  successStatus: 200,
  handler: async (deps, ctx, input) => ({ status: 200, body: await listMessages(deps, ctx, input) }),
});

const getMessageOp = defineOperation({
  name: "get_message",
  summary: "Show one message you sent or received: envelope, state and timeline.",
  http: { method: "GET", path: "/v1/messages/{message_id}" },
  auth: messageRoute(null),
  idempotency: "none",
  mutates: false,
  input: MessageIdPath,
  output: Type.Object({
    envelope: EnvelopeSchema,
    state: StateSchema,
    lease: Type.Union(
      [
        Type.Object({
          claimed_at: Timestamp("When the current delivery claimed it."),
          expires_at: Timestamp("When the lease runs (or ran) out."),
          extensions: Type.Integer({ description: "extend_lease calls on this lease." }),
          live: Type.Boolean({ description: "False once the lease ran out: the message is then claimable again (state pending)." }),
        }),
        Type.Null(),
      ],
      { description: "The lease of a claimed message not yet acknowledged, live or run out; null otherwise." },
    ),
    payload_bytes: Type.Integer({ description: "Size of the payload as JSON, in bytes (the payload itself: get_message_payload)." }),
    approval: Type.Optional(ApprovalSchema),
    timeline: Type.Array(TimelineEntrySchema),
  }),
  successStatus: 200,
  handler: async (deps, ctx, input) => ({ status: 200, body: await getMessage(deps, ctx, input) }),
});

const getThreadOp = defineOperation({
  name: "get_thread",
  summary: "List a thread's messages you sent or received, oldest first.",
  http: { method: "GET", path: "/v1/threads/{thread_id}", query: ["limit", "cursor"] },
  auth: messageRoute(null),
  idempotency: "none",
  mutates: false,
  input: Type.Object({ thread_id: Type.String({ maxLength: 64, description: "The thread's id (envelope.thread_id)." }), limit: Limit, cursor: Cursor }),
  output: Type.Object({ thread_id: Type.String(), items: Type.Array(Type.Object({ envelope: EnvelopeSchema, state: StateSchema })), next_cursor: NextCursor }),
  successStatus: 200,
  handler: async (deps, ctx, input) => ({ status: 200, body: await getThread(deps, ctx, input) }),
});

const getMessagePayloadOp = defineOperation({
  name: "get_message_payload",
  summary: "Read the payload of a message get_message shows you (a person's session: any of the workspace); each read is an audit row (message.payload_viewed). Administrative.",
  http: { method: "GET", path: "/v1/messages/{message_id}/payload" },
  auth: administrative,
  idempotency: "none",
  // It writes the audit row of the read: a viewer's session, which only reads, is refused.
  mutates: true,
  input: MessageIdPath,
  output: Type.Object({ message_id: Type.String(), template: Type.String(), payload: Type.Unknown({ description: "The payload as sent." }) }),
  successStatus: 200,
  handler: async (deps, ctx, input) => ({ status: 200, body: await getMessagePayload(deps, ctx, input) }),
});

const listRecipientsOp = defineOperation({
  name: "list_recipients",
  summary: "List the AI accounts of your workspace you can address (by friendly name).",
  http: { method: "GET", path: "/v1/recipients", query: ["limit", "cursor"] },
  auth: messageRoute("list_recipients"),
  idempotency: "none",
  mutates: false,
  input: Type.Object({ limit: Limit, cursor: Cursor }),
  output: Type.Object({ items: Type.Array(AccountRef("An addressable AI account.")), next_cursor: NextCursor }),
  successStatus: 200,
  handler: async (deps, ctx, input) => ({ status: 200, body: await listRecipients(deps, ctx, input) }),
});

const listTemplatesOp = defineOperation({
  name: "list_templates",
  summary: "List the message templates (use get_template for a template's JSON Schema).",
  http: { method: "GET", path: "/v1/templates", query: ["limit", "cursor"] },
  auth: messageRoute("list_templates"),
  idempotency: "none",
  mutates: false,
  input: Type.Object({ limit: Limit, cursor: Cursor }),
  output: Type.Object({ items: Type.Array(TemplateListItemSchema), next_cursor: NextCursor }),
  successStatus: 200,
  handler: async (deps, ctx, input) => ({ status: 200, body: await listTemplates(deps, ctx, input) }),
});

const getTemplateOp = defineOperation({
  name: "get_template",
  summary: "Read one template's JSON Schema: the shape its payloads must have.",
  http: { method: "GET", path: "/v1/templates/{name}" },
  auth: messageRoute("get_template"),
  idempotency: "none",
  mutates: false,
  input: Type.Object({ name: Type.String({ minLength: 1, maxLength: 200, description: "Template name." }) }),
  output: Type.Object({ name: Type.String(), description: Type.String(), schema: Type.Record(Type.String(), Type.Unknown(), { description: "The payload's JSON Schema." }) }),
  successStatus: 200,
  handler: async (deps, ctx, input) => ({ status: 200, body: await getTemplate(deps, ctx, input) }),
});

const listDeadLettersOp = defineOperation({
  name: "list_dead_letters",
  summary: "List the workspace's dead-lettered messages (delivered too often without an ack), newest first. Administrative.",
  http: { method: "GET", path: "/v1/dead-letters", query: ["limit", "cursor"] },
  auth: administrative,
  idempotency: "none",
  mutates: false,
  input: Type.Object({ limit: Limit, cursor: Cursor }),
  output: Type.Object({ items: Type.Array(Type.Object({ envelope: EnvelopeSchema, state: Type.Literal("dead_lettered"), dead_lettered_at: Type.Union([Timestamp("When it was dead-lettered."), Type.Null()]) })), next_cursor: NextCursor }),
  successStatus: 200,
  handler: async (deps, ctx, input) => ({ status: 200, body: await listDeadLetters(deps, ctx, input) }),
});

const countWaitingMessagesOp = defineOperation({
  name: "count_waiting_messages",
  summary: "Count what waits in the workspace: pending and held messages per recipient, and the dead letters. Administrative.",
  http: { method: "GET", path: "/v1/message-counts" },
  auth: administrative,
  idempotency: "none",
  mutates: false,
  input: Type.Object({}),
  output: Type.Object({
    recipients: Type.Array(
      Type.Object({
        ai_account_id: Type.String({ description: "ULID of the recipient." }),
        friendly_name: Type.String({ description: "Its current name." }),
        pending: Type.Integer({ description: "Pending messages, not expired." }),
        held: Type.Integer({ description: "Claimed messages not yet acknowledged, not expired." }),
      }),
      { description: "Recipients with pending or held messages, by name." },
    ),
    dead_lettered: Type.Integer({ description: "Dead-lettered messages of the workspace." }),
    counted_at: Timestamp("The instant the counts hold for (the database clock)."),
  }),
  successStatus: 200,
  handler: async (deps, ctx) => ({ status: 200, body: await countWaitingMessages(deps, ctx) }),
});

const releaseDeadLetterOp = defineOperation({
  name: "release_dead_letter",
  summary: "Return a dead-lettered message to pending with its delivery count reset. Administrative.",
  http: { method: "POST", path: "/v1/dead-letters/{message_id}/release" },
  auth: administrative,
  idempotency: "optional",
  mutates: true,
  input: MessageIdPath,
  output: Type.Object({ message_id: Type.String(), state: Type.Literal("pending"), available_at: Timestamp("When it can be claimed again.") }),
  successStatus: 200,
  handler: (deps, ctx, input) => releaseDeadLetter(deps, ctx, input),
});

const purgeDeadLetterOp = defineOperation({
  name: "purge_dead_letter",
  summary: "Delete a dead-lettered message for good (its audit rows stay). Administrative.",
  http: { method: "POST", path: "/v1/dead-letters/{message_id}/purge" },
  auth: administrative,
  idempotency: "optional",
  mutates: true,
  input: MessageIdPath,
  output: Type.Object({ message_id: Type.String(), purged: Type.Literal(true) }),
  successStatus: 200,
  handler: (deps, ctx, input) => purgeDeadLetter(deps, ctx, input),
});

const ApprovalItemSchema = Type.Object({ envelope: EnvelopeSchema, payload: Type.Unknown({ description: "The message content." }), state: StateSchema, approval: ApprovalSchema });

const listApprovalsOp = defineOperation({
  name: "list_approvals",
  summary: "List the workspace's messages held for approval, oldest first, with their payloads. Administrative (approve_messages).",
  http: { method: "GET", path: "/v1/approvals", query: ["limit", "cursor"] },
  auth: APPROVAL_AUTH,
  idempotency: "none",
  mutates: false,
  input: Type.Object({ limit: Limit, cursor: Cursor }),
  output: Type.Object({ items: Type.Array(ApprovalItemSchema), next_cursor: NextCursor }),
  successStatus: 200,
  handler: async (deps, ctx, input) => ({ status: 200, body: await listApprovals(deps, ctx, input) }),
});

const getApprovalOp = defineOperation({
  name: "get_approval",
  summary: "Show a message an approval policy held, with its payload and state. Administrative (approve_messages).",
  http: { method: "GET", path: "/v1/approvals/{message_id}" },
  auth: APPROVAL_AUTH,
  idempotency: "none",
  mutates: false,
  input: MessageIdPath,
  output: ApprovalItemSchema,
  successStatus: 200,
  handler: async (deps, ctx, input) => ({ status: 200, body: await getApproval(deps, ctx, input) }),
});

const DecisionOutput = (state: "pending" | "rejected") => Type.Object({ message_id: Type.String(), state: Type.Literal(state), decided_at: Timestamp("When it was decided.") });

const approveMessageOp = defineWriteOperation({
  name: "approve_message",
  summary: "Approve a message held for approval: it becomes pending for its recipient. Administrative (approve_messages).",
  http: { method: "POST", path: "/v1/messages/{message_id}/approve" },
  auth: APPROVAL_AUTH,
  input: MessageIdPath,
  output: DecisionOutput("pending"),
  successStatus: 200,
  run: async (deps, ctx, input, stores) => ({ body: await decideApproval(deps, ctx, input, "approve", stores) }),
});

const rejectMessageOp = defineWriteOperation({
  name: "reject_message",
  summary: "Reject a message held for approval: it is never delivered. Administrative (approve_messages).",
  http: { method: "POST", path: "/v1/messages/{message_id}/reject" },
  auth: APPROVAL_AUTH,
  input: Type.Object({ message_id: MessageId, reason: Type.Optional(Type.Union([Type.String(), Type.Null()], { description: "Why, up to 1000 characters (in the timeline)." })) }),
  output: DecisionOutput("rejected"),
  successStatus: 200,
  run: async (deps, ctx, input, stores) => ({ body: await decideApproval(deps, ctx, input, "reject", stores) }),
});

/** The messaging operations of the catalogue, in the order the tool list shows them. */
export const MESSAGING_OPERATIONS = [
  send,
  validate,
  getPending,
  ack,
  ackBatch,
  nack,
  extend,
  handOff,
  listMessagesOp,
  getMessageOp,
  getThreadOp,
  getMessagePayloadOp,
  listRecipientsOp,
  listTemplatesOp,
  getTemplateOp,
  listDeadLettersOp,
  countWaitingMessagesOp,
  releaseDeadLetterOp,
  purgeDeadLetterOp,
  listApprovalsOp,
  getApprovalOp,
  approveMessageOp,
  rejectMessageOp,
] as const;
