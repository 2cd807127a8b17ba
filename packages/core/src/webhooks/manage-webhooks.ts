import type { AccessCaller } from "../access/ai-accounts.ts";
import type { CoreDeps } from "../deps.ts";
import { DomainError, malformed, notFound } from "../errors.ts";
import { isUlid } from "../ids.ts";
import { PRIORITIES, type Priority } from "../messaging/message.ts";
import type { Stores } from "../ports.ts";
import { DAY_MS, SECOND_MS, parseDurationMs } from "../time/duration.ts";
import { newSigningSeal, signingKeysAt } from "./signing.ts";
import { checkWebhookUrl, verifyDestination } from "./verify-destination.ts";
import { webhookAuditEntry } from "./webhook-audit.ts";
import { MAX_DELIVERY_ATTEMPTS, type DeliveryRecord, type DeliveryState, type SigningKey, type WebhookFilter, type WebhookRecord, type WebhookStats } from "./webhook.ts";

/** Longest webhook name. */
export const WEBHOOK_NAME_MAX = 200;
/** Most live webhooks one AI account may have (each send to it writes one outbox row per webhook). */
export const MAX_WEBHOOKS_PER_ACCOUNT = 10;
/** Most templates a filter may list. */
export const FILTER_TEMPLATES_MAX = 50;
/** Bounds of a signing-key rotation's overlap (default P1D). */
export const KEY_OVERLAP_BOUNDS = { minMs: SECOND_MS, maxMs: 7 * DAY_MS } as const;
/** The overlap when a rotation names none. */
export const DEFAULT_KEY_OVERLAP_MS = DAY_MS;
/** How many recent dead deliveries a webhook read shows. */
export const RECENT_DEAD_SHOWN = 5;

/** A filter as it arrives on the wire (already shape-checked). */
export interface WebhookFilterInput {
  templates?: string[] | null;
  min_priority?: string | null;
}

/** A webhook with its outbox statistics. */
export interface WebhookWithStats {
  webhook: WebhookRecord;
  stats: WebhookStats;
}

/** A webhook just created or rotated, with the seal its new signing secret derives from (never store the secret). */
export interface KeyedWebhook extends WebhookWithStats {
  seal: string;
}

function checkName(name: string): string {
  const trimmed = name.trim();
  if (trimmed.length === 0 || trimmed.length > WEBHOOK_NAME_MAX) throw malformed(`name must be 1 to ${WEBHOOK_NAME_MAX} characters.`, { field: "name" });
  return trimmed;
}

function checkMaxAttempts(n: number | undefined): number {
  if (n === undefined) return MAX_DELIVERY_ATTEMPTS;
  if (!Number.isInteger(n) || n < 1 || n > MAX_DELIVERY_ATTEMPTS) throw malformed(`max_attempts must be an integer from 1 to ${MAX_DELIVERY_ATTEMPTS}.`, { field: "max_attempts" });
  return n;
}

/**
 * Checks a filter: `templates` a non-empty list of distinct template names (or null/absent:
 * any template), `min_priority` one of low, normal, high, urgent (or null/absent: any).
 * @throws DomainError SVC_MALFORMED_REQUEST.
 */
export function checkFilter(input: WebhookFilterInput | undefined): WebhookFilter {
  const templates = input?.templates ?? null;
  if (templates !== null) {
    if (templates.length === 0 || templates.length > FILTER_TEMPLATES_MAX) throw malformed(`filter.templates must list 1 to ${FILTER_TEMPLATES_MAX} template names, or be null.`, { field: "filter.templates" });
    if (templates.some((t) => typeof t !== "string" || t.length === 0 || t.length > 100)) throw malformed("filter.templates must hold template names of 1 to 100 characters.", { field: "filter.templates" });
  }
  const minPriority = input?.min_priority ?? null;
  if (minPriority !== null && !(PRIORITIES as readonly string[]).includes(minPriority)) throw malformed(`filter.min_priority must be one of ${PRIORITIES.join(", ")}.`, { field: "filter.min_priority" });
  return { templates: templates === null ? null : [...new Set(templates)].sort(), minPriority: minPriority as Priority | null };
}

/**
 * The live webhook of the caller's workspace with that id.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND (missing, deleted or of another workspace).
 */
export async function findWebhook(stores: Stores, caller: Pick<AccessCaller, "principal">, webhookId: string): Promise<WebhookRecord> {
  const webhook = isUlid(webhookId) ? await stores.webhooks.findLive({ workspaceId: caller.principal.workspace.id, webhookId }) : null;
  if (webhook === null) throw notFound("Webhook");
  return webhook;
}

async function withStats(stores: Stores, webhook: WebhookRecord): Promise<WebhookWithStats> {
  return { webhook, stats: await stores.webhooks.stats({ workspaceId: webhook.workspaceId, webhookId: webhook.id, recentDeadLimit: RECENT_DEAD_SHOWN }) };
}

/** What create takes (already shape-checked). */
export interface CreateWebhookInput {
  aiAccountId: string;
  url: string;
  name: string;
  filter?: WebhookFilterInput;
  maxAttempts?: number;
}

async function liveAccountOrThrow(stores: Stores, workspaceId: string, aiAccountId: string) {
  const account = isUlid(aiAccountId) ? await stores.accounts.findById({ workspaceId, accountId: aiAccountId }) : null;
  if (account === null || account.state === "revoked") throw notFound("AI account");
  const existing = await stores.webhooks.list({ workspaceId, aiAccountId: account.id, after: null, limit: MAX_WEBHOOKS_PER_ACCOUNT });
  if (existing.length >= MAX_WEBHOOKS_PER_ACCOUNT) throw new DomainError("SVC_RESOURCE_CONFLICT", `An AI account has at most ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks.`, { limit: MAX_WEBHOOKS_PER_ACCOUNT });
  return account;
}

/**
 * The first half of a create, with no write: checks the fields, the AI account (exists here,
 * not revoked) and its webhook count, and builds the record with fresh ids and a new signing
 * key. The caller probes the destination (`verifyDestination`) outside any transaction, then
 * stores the record with `insertWebhook`.
 * @throws DomainError SVC_MALFORMED_REQUEST, SVC_RESOURCE_NOT_FOUND (account), SVC_RESOURCE_CONFLICT (too many webhooks).
 */
export async function planWebhook(deps: Pick<CoreDeps, "clock" | "ids">, stores: Stores, caller: Pick<AccessCaller, "principal">, input: CreateWebhookInput): Promise<WebhookRecord> {
  const url = checkWebhookUrl(input.url);
  const name = checkName(input.name);
  const filter = checkFilter(input.filter);
  const maxAttempts = checkMaxAttempts(input.maxAttempts);
  const workspaceId = caller.principal.workspace.id;
  const account = await liveAccountOrThrow(stores, workspaceId, input.aiAccountId);
  const now = deps.clock.now();
  const key: SigningKey = { id: deps.ids.next(), seal: newSigningSeal(), createdAt: now, expiresAt: null };
  return { id: deps.ids.next(), workspaceId, aiAccountId: account.id, url, name, filter, maxAttempts, signingKeys: [key], createdAt: now, updatedAt: now, deletedAt: null };
}

/**
 * The second half of a create, in the caller's transaction: checks the account and the webhook
 * count again, stores the planned (and verified) webhook and its `webhook.created` audit row.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND (account revoked meanwhile), SVC_RESOURCE_CONFLICT.
 */
export async function insertWebhook(deps: Pick<CoreDeps, "ids">, stores: Stores, caller: AccessCaller, webhook: WebhookRecord): Promise<KeyedWebhook> {
  await liveAccountOrThrow(stores, webhook.workspaceId, webhook.aiAccountId);
  await stores.webhooks.insert({ webhook });
  const key = webhook.signingKeys[0]!;
  await stores.audit.append({
    entry: webhookAuditEntry(deps, caller, {
      workspaceId: webhook.workspaceId,
      occurredAt: webhook.createdAt,
      activity: "webhook.created",
      webhookId: webhook.id,
      details: { ai_account_id: webhook.aiAccountId, url: webhook.url, name: webhook.name, filter: { templates: webhook.filter.templates, min_priority: webhook.filter.minPriority }, max_attempts: webhook.maxAttempts, signing_key_id: key.id },
    }),
  });
  return { webhook, stats: emptyStats(), seal: key.seal };
}

/**
 * Creates a webhook pushing the deliveries of one AI account (`webhook.created`) on one set of
 * stores: `planWebhook`, the verification probe (signed with the new key; a failure stores
 * nothing), `insertWebhook`. The operation runs the probe outside its transaction instead.
 * @throws DomainError SVC_MALFORMED_REQUEST (fields; details.verification_failure_reason when
 *   the probe fails), SVC_RESOURCE_NOT_FOUND (account), SVC_RESOURCE_CONFLICT (too many webhooks).
 */
export async function createWebhook(deps: Pick<CoreDeps, "clock" | "ids" | "secrets" | "webhookTransport">, stores: Stores, caller: AccessCaller, input: CreateWebhookInput): Promise<KeyedWebhook> {
  const webhook = await planWebhook(deps, stores, caller, input);
  await verifyDestination(deps, { webhookId: webhook.id, workspaceId: webhook.workspaceId, url: webhook.url, keys: webhook.signingKeys });
  return insertWebhook(deps, stores, caller, webhook);
}

/**
 * Probes a webhook's new URL ahead of `updateWebhook` (outside any transaction): returns the
 * normalized URL once it is verified, or when it is the current URL (nothing to verify).
 * @throws DomainError SVC_MALFORMED_REQUEST (url; failed probe), SVC_RESOURCE_NOT_FOUND.
 */
export async function verifyUrlChange(deps: Pick<CoreDeps, "clock" | "ids" | "secrets" | "webhookTransport">, stores: Stores, caller: Pick<AccessCaller, "principal">, p: { webhookId: string; url: string }): Promise<string> {
  const current = await findWebhook(stores, caller, p.webhookId);
  const url = checkWebhookUrl(p.url);
  if (url !== current.url) await verifyDestination(deps, { webhookId: current.id, workspaceId: current.workspaceId, url, keys: signingKeysAt(current.signingKeys, deps.clock.now()) });
  return url;
}

/** Statistics of a webhook with no deliveries. */
export function emptyStats(): WebhookStats {
  return { counts: { pending: 0, retrying: 0, delivered: 0, dead: 0 }, lastSuccessAt: null, lastFailureAt: null, lastFailureReason: null, recentDead: [] };
}

/** One webhook of the caller's workspace with its statistics. @throws DomainError SVC_RESOURCE_NOT_FOUND. */
export async function getWebhook(stores: Stores, caller: Pick<AccessCaller, "principal">, webhookId: string): Promise<WebhookWithStats> {
  return withStats(stores, await findWebhook(stores, caller, webhookId));
}

/** One page of the workspace's live webhooks (oldest first), optionally of one AI account, each with its statistics. */
export async function listWebhooks(stores: Stores, caller: Pick<AccessCaller, "principal">, p: { aiAccountId: string | null; after: string | null; limit: number }): Promise<{ items: WebhookWithStats[]; nextAfter: string | null }> {
  const rows = await stores.webhooks.list({ workspaceId: caller.principal.workspace.id, aiAccountId: p.aiAccountId, after: p.after, limit: p.limit });
  const page = rows.slice(0, p.limit);
  const items: WebhookWithStats[] = [];
  for (const w of page) items.push(await withStats(stores, w));
  const last = page[page.length - 1];
  return { items, nextAfter: rows.length > p.limit && last ? last.id : null };
}

/**
 * Changes a webhook's URL, name, filter or attempt ceiling (`webhook.updated`, naming the
 * changed fields). A new URL is verified again (signed with the keys that sign now), unless it
 * is `opts.verifiedUrl` (already probed by `verifyUrlChange`).
 * @throws DomainError SVC_MALFORMED_REQUEST (nothing to change; fields; failed probe), SVC_RESOURCE_NOT_FOUND.
 */
export async function updateWebhook(
  deps: Pick<CoreDeps, "clock" | "ids" | "secrets" | "webhookTransport">,
  stores: Stores,
  caller: AccessCaller,
  input: { webhookId: string; url?: string; name?: string; filter?: WebhookFilterInput; maxAttempts?: number },
  opts: { verifiedUrl?: string } = {},
): Promise<WebhookWithStats> {
  if (input.url === undefined && input.name === undefined && input.filter === undefined && input.maxAttempts === undefined) {
    throw malformed("Give at least one of url, name, filter, max_attempts.", { field: "url" });
  }
  const current = await findWebhook(stores, caller, input.webhookId);
  const now = deps.clock.now();
  const changes: { url?: string; name?: string; filter?: WebhookFilter; maxAttempts?: number } = {};
  if (input.url !== undefined) {
    const url = checkWebhookUrl(input.url);
    if (url !== current.url) {
      if (url !== opts.verifiedUrl) await verifyDestination(deps, { webhookId: current.id, workspaceId: current.workspaceId, url, keys: signingKeysAt(current.signingKeys, now) });
      changes.url = url;
    }
  }
  if (input.name !== undefined) changes.name = checkName(input.name);
  if (input.filter !== undefined) changes.filter = checkFilter(input.filter);
  if (input.maxAttempts !== undefined) changes.maxAttempts = checkMaxAttempts(input.maxAttempts);
  const updated = await stores.webhooks.update({ workspaceId: current.workspaceId, webhookId: current.id, changes, now });
  if (updated === null) throw notFound("Webhook");
  await stores.audit.append({
    entry: webhookAuditEntry(deps, caller, {
      workspaceId: current.workspaceId,
      occurredAt: now,
      activity: "webhook.updated",
      webhookId: current.id,
      details: {
        changed: Object.keys(changes).map((k) => (k === "maxAttempts" ? "max_attempts" : k)),
        ...(changes.url === undefined ? {} : { url: changes.url, previous_url: current.url }),
        ...(changes.name === undefined ? {} : { name: changes.name }),
        ...(changes.filter === undefined ? {} : { filter: { templates: changes.filter.templates, min_priority: changes.filter.minPriority } }),
        ...(changes.maxAttempts === undefined ? {} : { max_attempts: changes.maxAttempts }),
      },
    }),
  });
  return withStats(stores, updated);
}

/**
 * Rotates a webhook's signing key (`webhook.signing_key_rotated`): a new current key; the
 * previous current key keeps signing until now + overlap (default P1D, PT1S..P7D), so during
 * the overlap every delivery carries both signatures. Keys whose overlap has ended are dropped.
 * Of two concurrent rotations one wins; the other gets SVC_RESOURCE_CONFLICT.
 * @throws DomainError SVC_MALFORMED_REQUEST (overlap_window), SVC_RESOURCE_NOT_FOUND, SVC_RESOURCE_CONFLICT.
 */
export async function rotateSigningKey(deps: Pick<CoreDeps, "clock" | "ids">, stores: Stores, caller: AccessCaller, input: { webhookId: string; overlapWindow?: string }): Promise<KeyedWebhook> {
  const overlapMs = input.overlapWindow === undefined ? DEFAULT_KEY_OVERLAP_MS : parseDurationMs(input.overlapWindow, "overlap_window", KEY_OVERLAP_BOUNDS);
  const current = await findWebhook(stores, caller, input.webhookId);
  const now = deps.clock.now();
  const currentKey = current.signingKeys.find((k) => k.expiresAt === null) ?? current.signingKeys[0];
  if (currentKey === undefined) throw new DomainError("SVC_RESOURCE_CONFLICT", "The webhook has no signing key to rotate.");
  const overlapEndsAt = new Date(now.getTime() + overlapMs);
  const fresh: SigningKey = { id: deps.ids.next(), seal: newSigningSeal(), createdAt: now, expiresAt: null };
  const kept = signingKeysAt(current.signingKeys, now).map((k) => (k.expiresAt === null ? { ...k, expiresAt: overlapEndsAt } : k));
  const result = await stores.webhooks.replaceSigningKeys({ workspaceId: current.workspaceId, webhookId: current.id, expectedCurrentKeyId: currentKey.id, keys: [fresh, ...kept], now });
  if (result.kind === "not_found") throw notFound("Webhook");
  if (result.kind === "conflict") throw new DomainError("SVC_RESOURCE_CONFLICT", "The signing key was rotated meanwhile.");
  await stores.audit.append({
    entry: webhookAuditEntry(deps, caller, { workspaceId: current.workspaceId, occurredAt: now, activity: "webhook.signing_key_rotated", webhookId: current.id, details: { signing_key_id: fresh.id, previous_key_id: currentKey.id, overlap_ends_at: overlapEndsAt.toISOString() } }),
  });
  return { ...(await withStats(stores, result.webhook)), seal: fresh.seal };
}

/**
 * Soft-deletes a webhook and purges its pending and retrying deliveries (`webhook.deleted`,
 * with the number purged); later sends to its AI account write no outbox row for it.
 * @throws DomainError SVC_RESOURCE_NOT_FOUND (also when already deleted).
 */
export async function deleteWebhook(deps: Pick<CoreDeps, "clock" | "ids">, stores: Stores, caller: AccessCaller, webhookId: string): Promise<{ webhook: WebhookRecord; purged: number }> {
  const current = await findWebhook(stores, caller, webhookId);
  const now = deps.clock.now();
  const result = await stores.webhooks.softDelete({ workspaceId: current.workspaceId, webhookId: current.id, now });
  if (result === null) throw notFound("Webhook");
  await stores.audit.append({
    entry: webhookAuditEntry(deps, caller, { workspaceId: current.workspaceId, occurredAt: now, activity: "webhook.deleted", webhookId: current.id, details: { purged_deliveries: result.purged, url: current.url } }),
  });
  return result;
}

/** One page of a live webhook's deliveries, newest first, optionally of one state. @throws DomainError SVC_RESOURCE_NOT_FOUND. */
export async function listDeliveries(stores: Stores, caller: Pick<AccessCaller, "principal">, p: { webhookId: string; state: DeliveryState | null; after: string | null; limit: number }): Promise<{ items: DeliveryRecord[]; nextAfter: string | null }> {
  const webhook = await findWebhook(stores, caller, p.webhookId);
  const rows = await stores.webhooks.listDeliveries({ workspaceId: webhook.workspaceId, webhookId: webhook.id, state: p.state, after: p.after, limit: p.limit });
  const items = rows.slice(0, p.limit);
  const last = items[items.length - 1];
  return { items, nextAfter: rows.length > p.limit && last ? last.id : null };
}
