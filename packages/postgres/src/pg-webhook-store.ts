import type { WebhookOutbox, WebhookStore } from "@agentq/core";
import type { SigningKey, WebhookRecord } from "./core-types.ts";
import { withPgErrors } from "./pg-errors.ts";
import { queryStore } from "./pg-query-store.ts";
import { webhookOutboxClaimDue, webhookOutboxListDeliveries, webhookOutboxPurgeFinished, webhookOutboxRecordFailure, webhookOutboxRecordSuccess } from "./queries/webhook-outbox.ts";
import { webhooksFindLive, webhooksInsert, webhooksList, webhooksReplaceSigningKeys, webhooksSoftDelete, webhooksStats, webhooksUpdate } from "./queries/webhooks.ts";

/** WebhookStore on PostgreSQL, bound to a pool or to one transaction. */
export class PgWebhookStore extends queryStore({
  insert: webhooksInsert, findLive: webhooksFindLive, list: webhooksList, update: webhooksUpdate, softDelete: webhooksSoftDelete, stats: webhooksStats,
  listDeliveries: webhookOutboxListDeliveries,
}) implements WebhookStore {
  replaceSigningKeys(p: { workspaceId: string; webhookId: string; expectedCurrentKeyId: string; keys: SigningKey[]; now: Date }): Promise<{ kind: "rotated"; webhook: WebhookRecord } | { kind: "conflict" } | { kind: "not_found" }> {
    return withPgErrors(async () => {
      const webhook = await webhooksReplaceSigningKeys(this.sql, p);
      if (webhook !== null) return { kind: "rotated", webhook };
      return (await webhooksFindLive(this.sql, p)) === null ? { kind: "not_found" } : { kind: "conflict" };
    });
  }
}

/** WebhookOutbox on PostgreSQL (the dispatcher's side), on the database clock. */
export class PgWebhookOutbox extends queryStore({
  claimDue: webhookOutboxClaimDue, recordSuccess: webhookOutboxRecordSuccess, recordFailure: webhookOutboxRecordFailure,
  purgeFinished: webhookOutboxPurgeFinished,
}) implements WebhookOutbox {}
