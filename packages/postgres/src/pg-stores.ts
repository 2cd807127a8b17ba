import type { Stores, TxRunner } from "@agentq/core";
import type postgres from "postgres";
import { PgAccountStore } from "./pg-account-store.ts";
import { PgAuditLog } from "./pg-audit-log.ts";
import { PgCredentialStore } from "./pg-credential-store.ts";
import { translatePgError } from "./pg-errors.ts";
import { PgIdempotencyStore } from "./pg-idempotency-store.ts";
import { PgMessageStore } from "./pg-message-store.ts";
import { SendBatcher } from "./pg-send-batcher.ts";
import { PgWorkspaceStore } from "./pg-workspace-store.ts";
import { PgPlanStore, PgPolicyStore } from "./pg-guard-rail-stores.ts";
import { PgWebhookOutbox, PgWebhookStore } from "./pg-webhook-store.ts";
import { PgBacklogStore, PgBuildSessionStore, PgDecisionLogStore, PgProjectStore, PgRecordEventStore } from "./pg-session-state-stores.ts";

/** Every store bound to the pool: each call runs (and commits) on its own, except that concurrent sends share statements and commits (SendBatcher). */
export function createPgStores(sql: postgres.Sql): Stores {
  return {
    workspaces: new PgWorkspaceStore(sql),
    accounts: new PgAccountStore(sql),
    credentials: new PgCredentialStore(sql),
    messages: new PgMessageStore(sql, new SendBatcher(sql)),
    audit: new PgAuditLog(sql, sql),
    idempotency: new PgIdempotencyStore(sql),
    webhooks: new PgWebhookStore(sql),
    outbox: new PgWebhookOutbox(sql),
    policies: new PgPolicyStore(sql),
    plans: new PgPlanStore(sql),
    projects: new PgProjectStore(sql),
    decisions: new PgDecisionLogStore(sql),
    recordEvents: new PgRecordEventStore(sql),
    buildSessions: new PgBuildSessionStore(sql),
    backlog: new PgBacklogStore(sql),
  };
}

/** Every store bound to one transaction (`sql.begin`'s handle). */
export function bindPgStores(tx: postgres.TransactionSql): Stores {
  return {
    workspaces: new PgWorkspaceStore(tx),
    accounts: new PgAccountStore(tx),
    credentials: new PgCredentialStore(tx),
    messages: new PgMessageStore(tx),
    audit: new PgAuditLog(tx, null),
    idempotency: new PgIdempotencyStore(tx),
    webhooks: new PgWebhookStore(tx),
    outbox: new PgWebhookOutbox(tx),
    policies: new PgPolicyStore(tx),
    plans: new PgPlanStore(tx),
    projects: new PgProjectStore(tx),
    decisions: new PgDecisionLogStore(tx),
    recordEvents: new PgRecordEventStore(tx),
    buildSessions: new PgBuildSessionStore(tx),
    backlog: new PgBacklogStore(tx),
  };
}

/**
 * TxRunner on PostgreSQL: `sql.begin` (READ COMMITTED, one pooled connection for the whole
 * unit) with every store bound to the transaction. Commits when `fn` resolves; rolls back and
 * rethrows when it throws. Notifications raised inside are delivered at commit only.
 */
export class PgTxRunner implements TxRunner {
  constructor(private readonly sql: postgres.Sql) {}

  async run<T>(fn: (stores: Stores) => Promise<T>): Promise<T> {
    try {
      return (await this.sql.begin((tx) => fn(bindPgStores(tx)))) as T;
    } catch (e) {
      throw translatePgError(e);
    }
  }
}
