import { signingKeysAt } from "./signing.ts";
import type { DeliveryRecord, DeliveryState, WebhookFilter, WebhookRecord, WebhookStats } from "./webhook.ts";

/** The wire form of a filter. */
export interface WebhookFilterView {
  templates: string[] | null;
  min_priority: string | null;
}

/** The wire form of one signing key (never the key). */
export interface SigningKeyView {
  id: string;
  /** `current` signs alone after any overlap; `previous` still signs until expires_at. */
  state: "current" | "previous";
  created_at: string;
  expires_at: string | null;
}

/** The wire form of a delivery. */
export interface DeliveryView {
  id: string;
  webhook_id: string;
  event_type: string;
  message_id: string | null;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: string | null;
  created_at: string;
  last_attempt_at: string | null;
  last_status: number | null;
  last_error: string | null;
  delivered_at: string | null;
  dead_at: string | null;
}

/** The wire form of a webhook with its health and outbox. */
export interface WebhookView {
  id: string;
  ai_account_id: string;
  url: string;
  name: string;
  filter: WebhookFilterView;
  max_attempts: number;
  state: "active";
  created_at: string;
  updated_at: string;
  health: { status: "healthy" | "failing" | "idle"; last_success_at: string | null; last_failure_at: string | null; last_failure_reason: string | null };
  signing_keys: SigningKeyView[];
  outbox: Record<DeliveryState, number>;
  recent_dead_deliveries: DeliveryView[];
}

const iso = (d: Date | null) => (d === null ? null : d.toISOString());

/** The wire form of a filter. */
export function filterView(f: WebhookFilter): WebhookFilterView {
  return { templates: f.templates === null ? null : [...f.templates], min_priority: f.minPriority };
}

/** The wire form of a delivery. */
export function deliveryView(d: DeliveryRecord): DeliveryView {
  return {
    id: d.id,
    webhook_id: d.webhookId,
    event_type: d.eventType,
    message_id: d.messageId,
    state: d.state,
    attempts: d.attempts,
    next_attempt_at: d.state === "pending" || d.state === "retrying" ? d.nextAttemptAt.toISOString() : null,
    created_at: d.createdAt.toISOString(),
    last_attempt_at: iso(d.lastAttemptAt),
    last_status: d.lastStatus,
    last_error: d.lastError,
    delivered_at: iso(d.deliveredAt),
    dead_at: iso(d.deadAt),
  };
}

/** The wire form of a webhook: configuration, health, keys still signing at `now`, outbox counts, recent dead deliveries. */
export function webhookView(w: WebhookRecord, stats: WebhookStats, now: Date): WebhookView {
  const failing = stats.lastFailureAt !== null && (stats.lastSuccessAt === null || stats.lastFailureAt.getTime() > stats.lastSuccessAt.getTime());
  const status = stats.lastSuccessAt === null && stats.lastFailureAt === null ? "idle" : failing ? "failing" : "healthy";
  return {
    id: w.id,
    ai_account_id: w.aiAccountId,
    url: w.url,
    name: w.name,
    filter: filterView(w.filter),
    max_attempts: w.maxAttempts,
    state: "active",
    created_at: w.createdAt.toISOString(),
    updated_at: w.updatedAt.toISOString(),
    health: { status, last_success_at: iso(stats.lastSuccessAt), last_failure_at: iso(stats.lastFailureAt), last_failure_reason: stats.lastFailureReason },
    signing_keys: signingKeysAt(w.signingKeys, now).map((k) => ({ id: k.id, state: k.expiresAt === null ? "current" : "previous", created_at: k.createdAt.toISOString(), expires_at: iso(k.expiresAt) })),
    outbox: { ...stats.counts },
    recent_dead_deliveries: stats.recentDead.map(deliveryView),
  };
}
