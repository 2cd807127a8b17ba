import { Type } from "@sinclair/typebox";
import type { TSchema } from "@sinclair/typebox";
import { decodeCursor } from "../cursors/cursor.ts";
import { pageOf } from "../cursors/page.ts";
import { storePage } from "../cursors/paged-list.ts";
import { parsePageLimit } from "../cursors/page-limit.ts";
import type { CoreDeps } from "../deps.ts";
import { malformed } from "../errors.ts";
import { replayOrConflict } from "../idempotency/replay.ts";
import { runIdempotent } from "../idempotency/run-idempotent.ts";
import { isUlid } from "../ids.ts";
import { PRIORITIES } from "../messaging/message.ts";
import { deleteWebhook, getWebhook, insertWebhook, listDeliveries, listWebhooks, planWebhook, rotateSigningKey, updateWebhook, verifyUrlChange, type KeyedWebhook } from "./manage-webhooks.ts";
import { verifyDestination } from "./verify-destination.ts";
import { signingSecretFromSeal } from "./signing.ts";
import { deliveryView, webhookView, type WebhookView } from "./webhook-views.ts";
import { DELIVERY_STATES, MAX_DELIVERY_ATTEMPTS, type DeliveryState } from "./webhook.ts";
import type { OperationContext, OperationResult } from "../operation.ts";
import { defineOperation, defineReadOperation } from "../operation.ts";
import { callerKey } from "../access/principal.ts";

// ---------------------------------------------------------------------------------------------
// Schemas
// ---------------------------------------------------------------------------------------------

const Id = (description: string) => Type.String({ minLength: 1, maxLength: 64, description });
const Nullable = <T extends TSchema>(t: T, description: string) => Type.Union([t, Type.Null()], { description });
const Timestamp = (description: string) => Type.String({ format: "date-time", description });
const NullableTimestamp = (description: string) => Nullable(Type.String({ format: "date-time" }), description);
const Limit = Type.Optional(Type.Union([Type.Integer(), Type.String()], { description: "Page size: default 50, clamped to 1..100; not an integer gives 400." }));
const Cursor = Type.Optional(Type.String({ maxLength: 2048, description: "next_cursor of the previous page (bound to this query; expires after 24 hours)." }));
const PrioritySchema = Type.Union(PRIORITIES.map((p) => Type.Literal(p)));
const DeliveryStateSchema = Type.Union(DELIVERY_STATES.map((s) => Type.Literal(s)), { description: "pending (not attempted yet), retrying (failed, another attempt is due), delivered (a 2xx came back), dead (attempts exhausted)." });

const FilterInput = Type.Object(
  {
    templates: Type.Optional(Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { minItems: 1, maxItems: 50 }), "Only messages of these templates; null or absent: any template.")),
    min_priority: Type.Optional(Nullable(PrioritySchema, "Only messages of at least this priority; null or absent: any priority.")),
  },
  { additionalProperties: false, description: "Which of the AI account's received messages are pushed. Absent: all of them." },
);
const FilterSchema = Type.Object({ templates: Nullable(Type.Array(Type.String()), "Template allow-list, or null for any."), min_priority: Nullable(Type.String(), "Lowest priority pushed, or null for any.") }, { description: "The webhook's filter." });
const DeliverySchema = Type.Object(
  {
    id: Type.String({ description: "ULID of the delivery; sent as the webhook-id header (stable across attempts: dedupe on it)." }),
    webhook_id: Type.String(),
    event_type: Type.String({ description: "message.sent" }),
    message_id: Nullable(Type.String(), "The message the event is about, or null."),
    state: DeliveryStateSchema,
    attempts: Type.Integer({ description: "Attempts finished so far." }),
    next_attempt_at: NullableTimestamp("When the next attempt is due (pending, retrying), else null."),
    created_at: Timestamp("When the event was written to the outbox (in the send's transaction)."),
    last_attempt_at: NullableTimestamp("When the last attempt finished, or null."),
    last_status: Nullable(Type.Integer(), "HTTP status of the last attempt, when a response came back."),
    last_error: Nullable(Type.String(), "Why the last attempt failed: status_<code>, timeout, connection_failed, dns_failure, destination_not_public, invalid_url; null when none failed."),
    delivered_at: NullableTimestamp("When a 2xx came back, or null."),
    dead_at: NullableTimestamp("When the delivery was marked dead (exhausted), or null."),
  },
  { description: "One delivery of an event to the webhook (an outbox row)." },
);
const OutboxCounts = Type.Object({ pending: Type.Integer(), retrying: Type.Integer(), delivered: Type.Integer(), dead: Type.Integer() }, { description: "Deliveries by state." });
const WebhookSchema = Type.Object(
  {
    id: Type.String({ description: "ULID of the webhook." }),
    ai_account_id: Type.String({ description: "The AI account whose received messages are pushed." }),
    url: Type.String({ description: "The destination." }),
    name: Type.String(),
    filter: FilterSchema,
    max_attempts: Type.Integer({ description: `Attempt ceiling per delivery (1..${MAX_DELIVERY_ATTEMPTS}; ${MAX_DELIVERY_ATTEMPTS} = the first attempt plus five retries).` }),
    state: Type.Literal("active"),
    created_at: Timestamp("When the webhook was created."),
    updated_at: Timestamp("When its configuration or keys last changed."),
    health: Type.Object(
      {
        status: Type.Union([Type.Literal("healthy"), Type.Literal("failing"), Type.Literal("idle")], { description: "idle: no attempt yet; failing: a delivery is retrying or dead and failed after the last success; healthy: otherwise." }),
        last_success_at: NullableTimestamp("Last 2xx."),
        last_failure_at: NullableTimestamp("Last failed attempt of a delivery still retrying or dead."),
        last_failure_reason: Nullable(Type.String(), "Why the last failed attempt failed."),
      },
      { description: "Delivery health." },
    ),
    signing_keys: Type.Array(
      Type.Object({
        id: Type.String({ description: "ULID of the key." }),
        state: Type.Union([Type.Literal("current"), Type.Literal("previous")], { description: "current; or previous: rotated out, still signing until expires_at." }),
        created_at: Timestamp("When the key was made."),
        expires_at: NullableTimestamp("End of the overlap of a previous key; null for the current one."),
      }),
      { description: "Every key that signs deliveries now, current first. The secrets are never shown again." },
    ),
    outbox: OutboxCounts,
    recent_dead_deliveries: Type.Array(DeliverySchema, { description: "Up to 5 most recent dead deliveries." }),
  },
  { description: "A webhook: configuration, health, signing keys, outbox counts, recent dead deliveries." },
);
const KeyedSchema = Type.Object(
  { webhook: WebhookSchema, signing_secret: Type.String({ description: "The new signing secret (whsec_...), shown only in this response; verify deliveries with it (Standard Webhooks)." }) },
  { description: "The webhook and its new signing secret, returned once." },
);
const page = <T extends TSchema>(item: T, description: string) =>
  Type.Object({ items: Type.Array(item), next_cursor: Type.Union([Type.String(), Type.Null()], { description: "Cursor of the next page; null on the last page." }) }, { description });

const WebhookPath = { webhook_id: Id("ULID of the webhook.") };
const MANAGE = { kind: "credential" as const, tier: "administrative" as const, scope: "manage_webhooks" as const };

// ---------------------------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------------------------

/** What a create or rotate stores as its idempotent response: the key's seal, never the secret. */
interface SealedKeyed {
  webhook: WebhookView;
  signing_secret_seal: string;
}

function sealKeyed(deps: CoreDeps, k: KeyedWebhook): SealedKeyed {
  return { webhook: webhookView(k.webhook, k.stats, deps.clock.now()), signing_secret_seal: k.seal };
}

/** Turns a sealed response (fresh or replayed) into the wire response: the same secret bytes on replay, no secret in the idempotency store. */
function unsealKeyed(deps: CoreDeps, result: OperationResult): OperationResult {
  const sealed = result.body as SealedKeyed;
  return { ...result, body: { webhook: sealed.webhook, signing_secret: signingSecretFromSeal(deps.secrets.pepper, sealed.signing_secret_seal) } };
}

/**
 * The stored response of a finished request with this Idempotency-Key (or its conflict), looked
 * up before the destination probe so a replay never probes again. Null for a new key or one whose
 * first request is still running (`runIdempotent` then waits for it and decides).
 */
async function finishedReplay(deps: CoreDeps, ctx: OperationContext): Promise<OperationResult | null> {
  if (ctx.idempotencyKey === null) return null;
  const record = await deps.stores.idempotency.find({ workspaceId: ctx.principal.workspace.id, accountId: callerKey(ctx.principal), key: ctx.idempotencyKey });
  return record === null || record.status === null ? null : replayOrConflict(record, ctx);
}

// ---------------------------------------------------------------------------------------------
// Operations
// ---------------------------------------------------------------------------------------------

const createWebhookOp = defineOperation({
  name: "create_webhook",
  summary: "Create a webhook pushing an AI account's received messages to a URL; the URL must answer a signed probe with 2xx; the signing secret is returned once.",
  http: { method: "POST", path: "/v1/webhooks" },
  auth: MANAGE,
  idempotency: "required",
  mutates: true,
  input: Type.Object({
    ai_account_id: Id("The AI account whose received messages are pushed."),
    url: Type.String({ minLength: 1, maxLength: 2048, description: "http(s) destination; must resolve to public addresses only and answer a signed webhook.verification POST with 2xx within 5 s." }),
    name: Type.String({ minLength: 1, maxLength: 200, description: "Human label." }),
    filter: Type.Optional(FilterInput),
    max_attempts: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_DELIVERY_ATTEMPTS, description: `Attempt ceiling per delivery, default ${MAX_DELIVERY_ATTEMPTS}.` })),
  }),
  output: KeyedSchema,
  successStatus: 201,
  // The probe (up to 5 s of outbound HTTP) runs outside the transaction: no connection or key lock is held meanwhile.
  async handler(deps, ctx, input) {
    const replay = await finishedReplay(deps, ctx);
    if (replay !== null) return unsealKeyed(deps, replay);
    const planned = await planWebhook(deps, deps.stores, ctx, { aiAccountId: input.ai_account_id, url: input.url, name: input.name, ...(input.filter === undefined ? {} : { filter: input.filter }), ...(input.max_attempts === undefined ? {} : { maxAttempts: input.max_attempts }) });
    await verifyDestination(deps, { webhookId: planned.id, workspaceId: planned.workspaceId, url: planned.url, keys: planned.signingKeys });
    const result = await runIdempotent(deps, ctx, async (stores) => ({ status: 201, body: sealKeyed(deps, await insertWebhook(deps, stores, ctx, planned)) }));
    return unsealKeyed(deps, result);
  },
});

const listWebhooksOp = defineReadOperation({
  name: "list_webhooks",
  summary: "List the workspace's webhooks (oldest first) with health, signing keys, outbox counts and recent dead deliveries.",
  http: { path: "/v1/webhooks", query: ["limit", "cursor", "ai_account_id"] },
  auth: MANAGE,
  input: Type.Object({ limit: Limit, cursor: Cursor, ai_account_id: Type.Optional(Id("Only webhooks of this AI account.")) }),
  output: page(WebhookSchema, "A page of webhooks."),
  async handler(deps, ctx, input) {
    const limit = parsePageLimit(input.limit);
    const aiAccountId = input.ai_account_id ?? null;
    if (aiAccountId !== null && !isUlid(aiAccountId)) throw malformed("ai_account_id must be a ULID.", { field: "ai_account_id" });
    const filters = { ai_account_id: aiAccountId };
    const after = decodeCursor(deps, { resource: "webhooks", workspaceId: ctx.principal.workspace.id, filters }, input.cursor);
    const { items, nextAfter } = await listWebhooks(deps.stores, ctx, { aiAccountId, after, limit });
    const now = deps.clock.now();
    return { body: pageOf(deps, ctx, "webhooks", filters, nextAfter, items.map((w) => webhookView(w.webhook, w.stats, now))) };
  },
});

const getWebhookOp = defineReadOperation({
  name: "get_webhook",
  summary: "Read one webhook: configuration, health, signing keys, outbox counts, recent dead deliveries.",
  http: { path: "/v1/webhooks/{webhook_id}" },
  auth: MANAGE,
  input: Type.Object(WebhookPath),
  output: WebhookSchema,
  async handler(deps, ctx, input) {
    const { webhook, stats } = await getWebhook(deps.stores, ctx, input.webhook_id);
    return { body: webhookView(webhook, stats, deps.clock.now()) };
  },
});

const updateWebhookOp = defineOperation({
  name: "update_webhook",
  summary: "Change a webhook's URL (verified again), name, filter or attempt ceiling.",
  http: { method: "PATCH", path: "/v1/webhooks/{webhook_id}" },
  auth: MANAGE,
  idempotency: "required",
  mutates: true,
  input: Type.Object({
    ...WebhookPath,
    url: Type.Optional(Type.String({ minLength: 1, maxLength: 2048, description: "New destination; verified by the same probe as on creation." })),
    name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    filter: Type.Optional(FilterInput),
    max_attempts: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_DELIVERY_ATTEMPTS })),
  }),
  output: WebhookSchema,
  successStatus: 200,
  // A new URL is probed outside the transaction (see create).
  async handler(deps, ctx, input) {
    const replay = await finishedReplay(deps, ctx);
    if (replay !== null) return replay;
    const verifiedUrl = input.url === undefined ? undefined : await verifyUrlChange(deps, deps.stores, ctx, { webhookId: input.webhook_id, url: input.url });
    return runIdempotent(deps, ctx, async (stores) => {
      const { webhook, stats } = await updateWebhook(
        deps,
        stores,
        ctx,
        {
          webhookId: input.webhook_id,
          ...(input.url === undefined ? {} : { url: input.url }),
          ...(input.name === undefined ? {} : { name: input.name }),
          ...(input.filter === undefined ? {} : { filter: input.filter }),
          ...(input.max_attempts === undefined ? {} : { maxAttempts: input.max_attempts }),
        },
        verifiedUrl === undefined ? {} : { verifiedUrl },
      );
      return { status: 200, body: webhookView(webhook, stats, deps.clock.now()) };
    });
  },
});

const listDeliveriesOp = defineReadOperation({
  name: "list_webhook_deliveries",
  summary: "List a webhook's deliveries, newest first: pending, retrying, delivered, dead. Read only: no route retries a delivery.",
  http: { path: "/v1/webhooks/{webhook_id}/deliveries", query: ["limit", "cursor", "state"] },
  auth: MANAGE,
  input: Type.Object({ ...WebhookPath, limit: Limit, cursor: Cursor, state: Type.Optional(DeliveryStateSchema) }),
  output: page(DeliverySchema, "A page of deliveries."),
  async handler(deps, ctx, input) {
    const state: DeliveryState | null = input.state ?? null;
    const page = { resource: "webhook_deliveries", filters: { webhook_id: input.webhook_id, state }, limit: input.limit, cursor: input.cursor };
    return { body: await storePage(deps, ctx, page, (after, limit) => listDeliveries(deps.stores, ctx, { webhookId: input.webhook_id, state, after, limit }), deliveryView) };
  },
});

const rotateSigningKeyOp = defineOperation({
  name: "rotate_webhook_signing_key",
  summary: "Rotate a webhook's signing key: the new secret is returned once; the previous key keeps signing (both signatures sent) for overlap_window.",
  http: { method: "POST", path: "/v1/webhooks/{webhook_id}/rotate-signing-key" },
  auth: MANAGE,
  idempotency: "required",
  mutates: true,
  input: Type.Object({ ...WebhookPath, overlap_window: Type.Optional(Type.String({ maxLength: 40, description: "ISO 8601 duration, PT1S to P7D, default P1D: how long the previous key keeps signing." })) }),
  output: KeyedSchema,
  successStatus: 201,
  async handler(deps, ctx, input) {
    const result = await runIdempotent(deps, ctx, async (stores) => {
      const keyed = await rotateSigningKey(deps, stores, ctx, { webhookId: input.webhook_id, ...(input.overlap_window === undefined ? {} : { overlapWindow: input.overlap_window }) });
      return { status: 201, body: sealKeyed(deps, keyed) };
    });
    return unsealKeyed(deps, result);
  },
});

const deleteWebhookOp = defineOperation({
  name: "delete_webhook",
  summary: "Soft-delete a webhook and purge its pending and retrying deliveries.",
  http: { method: "DELETE", path: "/v1/webhooks/{webhook_id}" },
  auth: MANAGE,
  idempotency: "required",
  mutates: true,
  input: Type.Object(WebhookPath),
  output: Type.Object(
    { id: Type.String(), state: Type.Literal("deleted"), deleted_at: Timestamp("When it was deleted."), purged_deliveries: Type.Integer({ description: "Pending and retrying deliveries removed." }) },
    { description: "The deleted webhook." },
  ),
  successStatus: 200,
  handler: (deps, ctx, input) =>
    runIdempotent(deps, ctx, async (stores) => {
      const { webhook, purged } = await deleteWebhook(deps, stores, ctx, input.webhook_id);
      return { status: 200, body: { id: webhook.id, state: "deleted", deleted_at: (webhook.deletedAt ?? deps.clock.now()).toISOString(), purged_deliveries: purged } };
    }),
});

/**
 * The operations of the webhook area (spec §Endpoints/Webhooks): administrative tier, scope
 * manage_webhooks on every route, Idempotency-Key required on every write.
 */
export const WEBHOOK_OPERATIONS = [createWebhookOp, listWebhooksOp, getWebhookOp, updateWebhookOp, listDeliveriesOp, rotateSigningKeyOp, deleteWebhookOp] as const;
