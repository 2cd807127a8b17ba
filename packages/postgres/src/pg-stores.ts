import type { Stores, TxRunner } from "@agentq/core";
import type postgres from "postgres";
import { PgAccountStore } from "./pg-account-store.ts";
import { PgAuditLog, PgAuditTree } from "./pg-audit-log.ts";
import { PgCredentialStore } from "./pg-credential-store.ts";
import { translatePgError } from "./pg-errors.ts";
import { PgIdempotencyStore } from "./pg-idempotency-store.ts";
import { PgMessageStore } from "./pg-message-store.ts";
import { SendBatcher } from "./pg-send-batcher.ts";
import { PgWorkspaceStore } from "./pg-workspace-store.ts";
import { PgAnonymousLimitStore, PgPlanStore, PgPolicyStore } from "./pg-guard-rail-stores.ts";
import { PgWebhookOutbox, PgWebhookStore } from "./pg-webhook-store.ts";
import { PgNoticeStore } from "./pg-notice-store.ts";
import { PgPersonSessionStore, PgPersonStore, PgSignInThrottleStore } from "./pg-people-stores.ts";
import { PgImportStore, PgUsageStore } from "./pg-record-stores.ts";
import { PgLessonCandidateStore, PgLessonStore, PgRuleStore } from "./pg-learning-stores.ts";
import { PgOAuthStore } from "./pg-oauth-store.ts";
import { PgPersonTokenStore, PgWorkspacePeopleStore } from "./pg-person-admin-stores.ts";
import { PgLinkedIdentityStore, PgPendingSignUpStore } from "./pg-sign-up-stores.ts";
import { PgWorkspaceLifecycleStore } from "./pg-workspace-lifecycle-store.ts";
import { PgStatsStore } from "./pg-stats-store.ts";
import { PgBacklogStore, PgBuildSessionStore, PgDecisionLogStore, PgProjectStore, PgRecordEventStore } from "./pg-session-state-stores.ts";

/** Every store bound to the pool: each call runs (and commits) on its own, except that concurrent sends share statements and commits (SendBatcher). */
export function createPgStores(sql: postgres.Sql): Stores {
  return {
    workspaces: new PgWorkspaceStore(sql),
    accounts: new PgAccountStore(sql),
    credentials: new PgCredentialStore(sql),
    messages: new PgMessageStore(sql, new SendBatcher(sql)),
    audit: new PgAuditLog(sql, sql),
    auditTree: new PgAuditTree(sql),
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
    notices: new PgNoticeStore(sql),
    people: new PgPersonStore(sql),
    personSessions: new PgPersonSessionStore(sql),
    signInThrottle: new PgSignInThrottleStore(sql),
    anonymousLimits: new PgAnonymousLimitStore(sql),
    lessons: new PgLessonStore(sql),
    candidates: new PgLessonCandidateStore(sql),
    rules: new PgRuleStore(sql),
    usage: new PgUsageStore(sql),
    imports: new PgImportStore(sql),
    oauth: new PgOAuthStore(sql),
    personTokens: new PgPersonTokenStore(sql),
    pendingSignUps: new PgPendingSignUpStore(sql),
    linkedIdentities: new PgLinkedIdentityStore(sql),
    workspacePeople: new PgWorkspacePeopleStore(sql, sql),
    workspaceLifecycle: new PgWorkspaceLifecycleStore(sql, sql),
    stats: new PgStatsStore(sql),
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
    auditTree: new PgAuditTree(tx),
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
    notices: new PgNoticeStore(tx),
    people: new PgPersonStore(tx),
    personSessions: new PgPersonSessionStore(tx),
    signInThrottle: new PgSignInThrottleStore(tx),
    anonymousLimits: new PgAnonymousLimitStore(tx),
    lessons: new PgLessonStore(tx),
    candidates: new PgLessonCandidateStore(tx),
    rules: new PgRuleStore(tx),
    usage: new PgUsageStore(tx),
    imports: new PgImportStore(tx),
    oauth: new PgOAuthStore(tx),
    personTokens: new PgPersonTokenStore(tx),
    pendingSignUps: new PgPendingSignUpStore(tx),
    linkedIdentities: new PgLinkedIdentityStore(tx),
    workspacePeople: new PgWorkspacePeopleStore(tx, null),
    workspaceLifecycle: new PgWorkspaceLifecycleStore(tx, null),
    stats: new PgStatsStore(tx),
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
