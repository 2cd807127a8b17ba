import { InMemoryStatsStore } from "./in-memory-stats-store.ts";
import { TEST_PUBLIC_BASE_URL } from "./oauth-flow.ts";
import type { CoreDeps, ServerSecrets } from "../deps.ts";
import { ulidSource } from "../ids.ts";
import type { IdSource, Stores } from "../ports.ts";
import { InMemoryAccessTables, bindInMemoryAccessStores } from "./in-memory-access.ts";
import { InMemoryAnonymousLimitStore } from "./in-memory-anonymous-limits.ts";
import { InMemoryPeopleTables, InMemoryPersonSessionStore, InMemoryPersonStore, InMemorySignInThrottleStore } from "./in-memory-people.ts";
import { InMemoryLinkedIdentityStore, InMemoryPendingSignUpStore } from "./in-memory-sign-up-stores.ts";
import { InMemoryPersonTokenStore, InMemoryPersonTokenTables, InMemoryWorkspaceLifecycleStore, InMemoryWorkspacePeopleStore } from "./in-memory-person-admin.ts";
import { InMemoryTable } from "./in-memory-transaction.ts";
import { InMemoryAuditLog, InMemoryAuditTree } from "./in-memory-audit-log.ts";
import { InMemoryGuardRailTables, InMemoryPlanStore, InMemoryPolicyStore } from "./in-memory-guard-rails.ts";
import { InMemoryIdempotencyStore } from "./in-memory-idempotency-store.ts";
import { InMemoryMessageStore } from "./in-memory-message-store.ts";
import { InMemoryMessagingTables } from "./in-memory-messaging-tables.ts";
import type { InMemoryTransaction } from "./in-memory-transaction.ts";
import { InMemoryTxRunner } from "./in-memory-tx-runner.ts";
import { InMemoryWakeupNotifier } from "./in-memory-wakeup-notifier.ts";
import { ManualClock } from "./manual-clock.ts";
import { InMemoryNoticeStore, InMemoryNoticeTables } from "./in-memory-notices.ts";
import { InMemoryWebhookOutbox, InMemoryWebhookStore, InMemoryWebhookTables } from "./in-memory-webhooks.ts";
import { InMemoryImportStore, InMemoryRecordTables, InMemoryUsageStore } from "./in-memory-usage-and-imports.ts";
import { InMemoryLearningTables, InMemoryLessonCandidateStore, InMemoryLessonStore, InMemoryRuleStore } from "./in-memory-lessons-and-rules.ts";
import { InMemoryOAuthStore, InMemoryOAuthTables } from "./in-memory-oauth.ts";
import { InMemoryBacklogStore, InMemoryBuildSessionStore, InMemoryDecisionLogStore, InMemoryProjectStore, InMemoryRecordEventStore, InMemorySessionStateTables } from "./in-memory-session-state.ts";

/** A complete in-memory world: CoreDeps plus the handles tests use to steer and inspect it. */
export interface InMemoryWorld {
  deps: CoreDeps;
  /** The clock of every store and of the core; advance it to run leases and expiries out. */
  clock: ManualClock;
  notifier: InMemoryWakeupNotifier;
  tables: { messaging: InMemoryMessagingTables; access: InMemoryAccessTables; webhooks: InMemoryWebhookTables; guardRails: InMemoryGuardRailTables; sessionState: InMemorySessionStateTables; notices: InMemoryNoticeTables; people: InMemoryPeopleTables; learning: InMemoryLearningTables; records: InMemoryRecordTables; oauth: InMemoryOAuthTables; personTokens: InMemoryPersonTokenTables };
  /** Builds stores bound to `tx` (null: autocommit), sharing this world's tables. */
  bind(tx: InMemoryTransaction | null): Stores;
}

/** Fixed test secrets (never use outside tests). */
export const TEST_SECRETS: ServerSecrets = {
  pepper: new TextEncoder().encode("agentq-test-pepper-0123456789abcdef"),
  cursorKey: new TextEncoder().encode("agentq-test-cursor-key-0123456789ab"),
  logSeed: new TextEncoder().encode("agentq-test-log-seed-0123456789a"),
};

/**
 * Assembles full CoreDeps over in-memory adapters: one ManualClock (virtual time for leases,
 * expiries and long-poll timeouts), monotonic ULIDs, an in-process notifier, a serializing
 * TxRunner whose rollback undoes only its own writes, and fixed test secrets.
 */
export function createInMemoryDeps(opts?: { clock?: ManualClock; ids?: IdSource; secrets?: ServerSecrets }): InMemoryWorld {
  const clock = opts?.clock ?? new ManualClock();
  const ids = opts?.ids ?? ulidSource();
  const notifier = new InMemoryWakeupNotifier({ clock });
  const messaging = new InMemoryMessagingTables();
  const access = new InMemoryAccessTables();
  const guardRails = new InMemoryGuardRailTables();
  const webhooks = new InMemoryWebhookTables();
  const sessionState = new InMemorySessionStateTables();
  const notices = new InMemoryNoticeTables();
  const people = new InMemoryPeopleTables();
  const learning = new InMemoryLearningTables();
  const records = new InMemoryRecordTables();
  const oauth = new InMemoryOAuthTables();
  const personTokens = new InMemoryPersonTokenTables();
  const payloadsDeleted = new InMemoryTable<Date>();
  const anonymousLimits = new InMemoryAnonymousLimitStore();
  const bind = (tx: InMemoryTransaction | null): Stores => {
    const accessStores = bindInMemoryAccessStores(access, tx, oauth);
    const policies = new InMemoryPolicyStore(guardRails, tx);
    return {
      ...accessStores,
      messages: new InMemoryMessageStore({ tables: messaging, clock, ids, notifier, accounts: accessStores.accounts, policies, webhooks, callers: accessStores.accounts }, tx),
      audit: new InMemoryAuditLog(messaging, tx),
      auditTree: new InMemoryAuditTree(messaging),
      idempotency: new InMemoryIdempotencyStore(messaging, clock, tx),
      webhooks: new InMemoryWebhookStore(webhooks, tx),
      outbox: new InMemoryWebhookOutbox(webhooks, clock, tx),
      policies,
      plans: new InMemoryPlanStore(guardRails, { accounts: access.accounts, audit: messaging.audit }, tx),
      projects: new InMemoryProjectStore(sessionState, tx),
      decisions: new InMemoryDecisionLogStore(sessionState, tx),
      recordEvents: new InMemoryRecordEventStore(sessionState, tx),
      buildSessions: new InMemoryBuildSessionStore(sessionState, tx),
      backlog: new InMemoryBacklogStore(sessionState, tx),
      notices: new InMemoryNoticeStore(notices, { messaging, access, sessionState }, tx),
      people: new InMemoryPersonStore(access, tx, people),
      personSessions: new InMemoryPersonSessionStore(people, tx),
      signInThrottle: new InMemorySignInThrottleStore(people, tx),
      anonymousLimits,
      lessons: new InMemoryLessonStore(learning, tx),
      candidates: new InMemoryLessonCandidateStore(learning, tx),
      rules: new InMemoryRuleStore(learning, tx),
      usage: new InMemoryUsageStore(records, sessionState, tx),
      imports: new InMemoryImportStore(records, tx),
      oauth: new InMemoryOAuthStore(oauth, access, tx),
      personTokens: new InMemoryPersonTokenStore(personTokens, tx),
      pendingSignUps: new InMemoryPendingSignUpStore(people, tx),
      linkedIdentities: new InMemoryLinkedIdentityStore(people, tx),
      workspacePeople: new InMemoryWorkspacePeopleStore({ access, people, tokens: personTokens }, tx),
      workspaceLifecycle: new InMemoryWorkspaceLifecycleStore({ access, messaging, payloadsDeleted }, tx),
      stats: new InMemoryStatsStore(messaging, clock, tx),
    };
  };
  // The service's address in tests: the core never invents one (CoreDeps.publicBaseUrl).
  const deps: CoreDeps = { stores: bind(null), tx: new InMemoryTxRunner(bind), clock, ids, notifier, secrets: opts?.secrets ?? TEST_SECRETS, publicBaseUrl: TEST_PUBLIC_BASE_URL };
  return { deps, clock, notifier, tables: { messaging, access, webhooks, guardRails, sessionState, notices, people, learning, records, oauth, personTokens }, bind };
}
