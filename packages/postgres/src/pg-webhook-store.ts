import type { WebhookOutbox, WebhookStore } from "@agentq/core";
import type { ClaimedDelivery, DeliveryRecord, DeliveryState, SigningKey, WebhookFilter, WebhookRecord, WebhookStats } from "./core-types.ts";
import { withPgErrors } from "./pg-errors.ts";
import { webhookOutboxClaimDue, webhookOutboxListDeliveries, webhookOutboxPurgeFinished, webhookOutboxRecordFailure, webhookOutboxRecordSuccess } from "./queries/webhook-outbox.ts";
import { webhooksFindLive, webhooksInsert, webhooksList, webhooksReplaceSigningKeys, webhooksSoftDelete, webhooksStats, webhooksUpdate } from "./queries/webhooks.ts";
import type { SqlClient } from "./sql-client.ts";

/** WebhookStore on PostgreSQL, bound to a pool or to one transaction. */
export class PgWebhookStore implements WebhookStore {
  constructor(private readonly sql: SqlClient) {}

  insert(p: { webhook: WebhookRecord }): Promise<void> {
    return withPgErrors(() => webhooksInsert(this.sql, p));
  }

  findLive(p: { workspaceId: string; webhookId: string }): Promise<WebhookRecord | null> {
    return withPgErrors(() => webhooksFindLive(this.sql, p));
  }

  list(p: { workspaceId: string; aiAccountId: string | null; after: string | null; limit: number }): Promise<WebhookRecord[]> {
    return withPgErrors(() => webhooksList(this.sql, p));
  }

  update(p: { workspaceId: string; webhookId: string; changes: { url?: string; name?: string; filter?: WebhookFilter; maxAttempts?: number }; now: Date }): Promise<WebhookRecord | null> {
    return withPgErrors(() => webhooksUpdate(this.sql, p));
  }

  replaceSigningKeys(p: { workspaceId: string; webhookId: string; expectedCurrentKeyId: string; keys: SigningKey[]; now: Date }): Promise<{ kind: "rotated"; webhook: WebhookRecord } | { kind: "conflict" } | { kind: "not_found" }> {
    return withPgErrors(async () => {
      const webhook = await webhooksReplaceSigningKeys(this.sql, p);
      if (webhook !== null) return { kind: "rotated", webhook };
      return (await webhooksFindLive(this.sql, p)) === null ? { kind: "not_found" } : { kind: "conflict" };
    });
  }

  softDelete(p: { workspaceId: string; webhookId: string; now: Date }): Promise<{ webhook: WebhookRecord; purged: number } | null> {
    return withPgErrors(() => webhooksSoftDelete(this.sql, p));
  }

  stats(p: { workspaceId: string; webhookId: string; recentDeadLimit: number }): Promise<WebhookStats> {
    return withPgErrors(() => webhooksStats(this.sql, p));
  }

  listDeliveries(p: { workspaceId: string; webhookId: string; state: DeliveryState | null; after: string | null; limit: number }): Promise<DeliveryRecord[]> {
    return withPgErrors(() => webhookOutboxListDeliveries(this.sql, p));
  }
}

/** WebhookOutbox on PostgreSQL (the dispatcher's side), on the database clock. */
export class PgWebhookOutbox implements WebhookOutbox {
  constructor(private readonly sql: SqlClient) {}

  claimDue(p: { max: number; leaseMs: number; claimToken: string }): Promise<ClaimedDelivery[]> {
    return withPgErrors(() => webhookOutboxClaimDue(this.sql, p));
  }

  recordSuccess(p: { workspaceId: string; deliveryId: string; claimToken: string; status: number }): Promise<boolean> {
    return withPgErrors(() => webhookOutboxRecordSuccess(this.sql, p));
  }

  recordFailure(p: { workspaceId: string; deliveryId: string; claimToken: string; status: number | null; error: string; retryInMs: number | null }): Promise<DeliveryRecord | null> {
    return withPgErrors(() => webhookOutboxRecordFailure(this.sql, p));
  }

  purgeFinished(p: { finishedBefore: Date; limit: number }): Promise<number> {
    return withPgErrors(() => webhookOutboxPurgeFinished(this.sql, p));
  }
}
