import { PRIORITY_RANK, type MessageRecord } from "../messaging/message.ts";
import type { Clock, IdSource, WebhookOutbox, WebhookStore } from "../ports.ts";
import { MESSAGE_SENT_EVENT, type ClaimedDelivery, type DeliveryRecord, type DeliveryState, type SigningKey, type WebhookFilter, type WebhookRecord, type WebhookStats } from "../webhooks/webhook.ts";
import { InMemoryTable, type InMemoryTransaction } from "./in-memory-transaction.ts";

/** The rows behind the in-memory webhook stores, shared with InMemoryMessageStore (a send writes outbox rows). */
export class InMemoryWebhookTables {
  readonly webhooks = new InMemoryTable<WebhookRecord>();
  readonly outbox = new InMemoryTable<DeliveryRecord & { claimToken: string | null }>();
}

const key = (workspaceId: string, id: string) => `${workspaceId}/${id}`;

/** True when the webhook's filter lets the message through. */
export function filterMatches(filter: WebhookFilter, m: Pick<MessageRecord, "template" | "priority">): boolean {
  if (filter.templates !== null && !filter.templates.includes(m.template)) return false;
  if (filter.minPriority !== null && PRIORITY_RANK[m.priority] < PRIORITY_RANK[filter.minPriority]) return false;
  return true;
}

/**
 * The outbox rows of one accepted send, as `MessageStore.acceptSend` writes them: one
 * `message.sent` row per live webhook of the recipient whose filter matches, due at once.
 */
export function writeSendOutboxRows(tables: InMemoryWebhookTables, tx: InMemoryTransaction | null, ids: IdSource, m: MessageRecord): void {
  for (const w of tables.webhooks.values()) {
    if (w.workspaceId !== m.workspaceId || w.aiAccountId !== m.recipientId || w.deletedAt !== null || !filterMatches(w.filter, m)) continue;
    const id = ids.next();
    tables.outbox.set(tx, key(m.workspaceId, id), {
      id,
      workspaceId: m.workspaceId,
      webhookId: w.id,
      messageId: m.id,
      eventType: MESSAGE_SENT_EVENT,
      payload: {
        message_id: m.id,
        sender: { ai_account_id: m.senderId, friendly_name: m.senderName },
        recipient: { ai_account_id: m.recipientId, friendly_name: m.recipientName },
        template: m.template,
        priority: m.priority,
        correlation_id: m.correlationId,
        accepted_at: m.acceptedAt.toISOString(),
        expires_at: m.expiresAt.toISOString(),
      },
      state: "pending",
      attempts: 0,
      nextAttemptAt: m.acceptedAt,
      createdAt: m.acceptedAt,
      lastAttemptAt: null,
      lastStatus: null,
      lastError: null,
      deliveredAt: null,
      deadAt: null,
      traceparent: m.traceparent,
      claimToken: null,
    });
  }
}

function strip(row: DeliveryRecord & { claimToken: string | null }): DeliveryRecord {
  const { claimToken: _claimToken, ...rest } = row;
  return rest;
}

/** In-memory WebhookStore (read-check-write without awaits in between, so each call is atomic). */
export class InMemoryWebhookStore implements WebhookStore {
  constructor(
    private readonly tables: InMemoryWebhookTables,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  async insert(p: { webhook: WebhookRecord }): Promise<void> {
    this.tables.webhooks.set(this.tx, key(p.webhook.workspaceId, p.webhook.id), p.webhook);
  }

  /** Synchronous read, so a read-check-write has no await in between. */
  private live(p: { workspaceId: string; webhookId: string }): WebhookRecord | null {
    const w = this.tables.webhooks.get(key(p.workspaceId, p.webhookId));
    return w && w.deletedAt === null ? w : null;
  }

  async findLive(p: { workspaceId: string; webhookId: string }): Promise<WebhookRecord | null> {
    return this.live(p);
  }

  async list(p: { workspaceId: string; aiAccountId: string | null; after: string | null; limit: number }): Promise<WebhookRecord[]> {
    return this.tables.webhooks
      .values()
      .filter((w) => w.workspaceId === p.workspaceId && w.deletedAt === null && (p.aiAccountId === null || w.aiAccountId === p.aiAccountId) && (p.after === null || w.id > p.after))
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, p.limit + 1);
  }

  async update(p: { workspaceId: string; webhookId: string; changes: { url?: string; name?: string; filter?: WebhookFilter; maxAttempts?: number }; now: Date }): Promise<WebhookRecord | null> {
    const w = this.live(p);
    if (w === null) return null;
    const next: WebhookRecord = { ...w, ...p.changes, updatedAt: p.now };
    this.tables.webhooks.set(this.tx, key(w.workspaceId, w.id), next);
    return next;
  }

  async replaceSigningKeys(p: { workspaceId: string; webhookId: string; expectedCurrentKeyId: string; keys: SigningKey[]; now: Date }): Promise<{ kind: "rotated"; webhook: WebhookRecord } | { kind: "conflict" } | { kind: "not_found" }> {
    const w = this.live(p);
    if (w === null) return { kind: "not_found" };
    if (w.signingKeys[0]?.id !== p.expectedCurrentKeyId) return { kind: "conflict" };
    const next: WebhookRecord = { ...w, signingKeys: p.keys, updatedAt: p.now };
    this.tables.webhooks.set(this.tx, key(w.workspaceId, w.id), next);
    return { kind: "rotated", webhook: next };
  }

  async softDelete(p: { workspaceId: string; webhookId: string; now: Date }): Promise<{ webhook: WebhookRecord; purged: number } | null> {
    const w = this.live(p);
    if (w === null) return null;
    const deleted: WebhookRecord = { ...w, deletedAt: p.now };
    this.tables.webhooks.set(this.tx, key(w.workspaceId, w.id), deleted);
    let purged = 0;
    for (const d of this.tables.outbox.values()) {
      if (d.workspaceId === w.workspaceId && d.webhookId === w.id && (d.state === "pending" || d.state === "retrying")) {
        this.tables.outbox.delete(this.tx, key(d.workspaceId, d.id));
        purged++;
      }
    }
    return { webhook: deleted, purged };
  }

  async stats(p: { workspaceId: string; webhookId: string; recentDeadLimit: number }): Promise<WebhookStats> {
    const rows = this.tables.outbox.values().filter((d) => d.workspaceId === p.workspaceId && d.webhookId === p.webhookId);
    const counts: Record<DeliveryState, number> = { pending: 0, retrying: 0, delivered: 0, dead: 0 };
    let lastSuccessAt: Date | null = null;
    let lastFailure: DeliveryRecord | null = null;
    for (const d of rows) {
      counts[d.state]++;
      if (d.deliveredAt && (lastSuccessAt === null || d.deliveredAt > lastSuccessAt)) lastSuccessAt = d.deliveredAt;
      if (d.state !== "delivered" && d.lastError !== null && d.lastAttemptAt && (lastFailure === null || d.lastAttemptAt > (lastFailure.lastAttemptAt as Date))) lastFailure = d;
    }
    const recentDead = rows
      .filter((d) => d.state === "dead")
      .sort((a, b) => (a.id < b.id ? 1 : -1))
      .slice(0, p.recentDeadLimit)
      .map(strip);
    return { counts, lastSuccessAt, lastFailureAt: lastFailure?.lastAttemptAt ?? null, lastFailureReason: lastFailure?.lastError ?? null, recentDead };
  }

  async listDeliveries(p: { workspaceId: string; webhookId: string; state: DeliveryState | null; after: string | null; limit: number }): Promise<DeliveryRecord[]> {
    return this.tables.outbox
      .values()
      .filter((d) => d.workspaceId === p.workspaceId && d.webhookId === p.webhookId && (p.state === null || d.state === p.state) && (p.after === null || d.id < p.after))
      .sort((a, b) => (a.id < b.id ? 1 : -1))
      .slice(0, p.limit + 1)
      .map(strip);
  }
}

/** In-memory WebhookOutbox on the injected clock. */
export class InMemoryWebhookOutbox implements WebhookOutbox {
  constructor(
    private readonly tables: InMemoryWebhookTables,
    private readonly clock: Clock,
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  async claimDue(p: { max: number; leaseMs: number; claimToken: string }): Promise<ClaimedDelivery[]> {
    const now = this.clock.now();
    const due = this.tables.outbox
      .values()
      .filter((d) => (d.state === "pending" || d.state === "retrying") && d.nextAttemptAt.getTime() <= now.getTime())
      .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || (a.id < b.id ? -1 : 1));
    const out: ClaimedDelivery[] = [];
    for (const d of due) {
      if (out.length >= p.max) break;
      const w = this.tables.webhooks.get(key(d.workspaceId, d.webhookId));
      if (!w || w.deletedAt !== null) continue;
      const leased = { ...d, nextAttemptAt: new Date(now.getTime() + p.leaseMs), claimToken: p.claimToken };
      this.tables.outbox.set(this.tx, key(d.workspaceId, d.id), leased);
      out.push({ delivery: strip(leased), url: w.url, maxAttempts: w.maxAttempts, signingKeys: w.signingKeys });
    }
    return out;
  }

  private claimed(workspaceId: string, deliveryId: string, claimToken: string) {
    const d = this.tables.outbox.get(key(workspaceId, deliveryId));
    return d && d.claimToken === claimToken && (d.state === "pending" || d.state === "retrying") ? d : null;
  }

  async recordSuccess(p: { workspaceId: string; deliveryId: string; claimToken: string; status: number }): Promise<boolean> {
    const d = this.claimed(p.workspaceId, p.deliveryId, p.claimToken);
    if (d === null) return false;
    const now = this.clock.now();
    this.tables.outbox.set(this.tx, key(d.workspaceId, d.id), { ...d, state: "delivered", attempts: d.attempts + 1, lastAttemptAt: now, lastStatus: p.status, deliveredAt: now, claimToken: null });
    return true;
  }

  async purgeFinished(p: { finishedBefore: Date; limit: number }): Promise<number> {
    let purged = 0;
    for (const d of this.tables.outbox.values()) {
      if (purged >= p.limit) break;
      const finishedAt = d.deliveredAt ?? d.deadAt;
      if ((d.state === "delivered" || d.state === "dead") && finishedAt !== null && finishedAt.getTime() < p.finishedBefore.getTime()) {
        this.tables.outbox.delete(this.tx, key(d.workspaceId, d.id));
        purged++;
      }
    }
    return purged;
  }

  async recordFailure(p: { workspaceId: string; deliveryId: string; claimToken: string; status: number | null; error: string; retryInMs: number | null }): Promise<DeliveryRecord | null> {
    const d = this.claimed(p.workspaceId, p.deliveryId, p.claimToken);
    if (d === null) return null;
    const now = this.clock.now();
    const next = {
      ...d,
      state: (p.retryInMs === null ? "dead" : "retrying") as DeliveryState,
      attempts: d.attempts + 1,
      lastAttemptAt: now,
      lastStatus: p.status,
      lastError: p.error,
      nextAttemptAt: p.retryInMs === null ? d.nextAttemptAt : new Date(now.getTime() + p.retryInMs),
      deadAt: p.retryInMs === null ? now : null,
      claimToken: null,
    };
    this.tables.outbox.set(this.tx, key(d.workspaceId, d.id), next);
    return strip(next);
  }
}
