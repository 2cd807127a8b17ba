import type { AccountStore, CredentialStore, WorkspaceStore } from "./access.ts";
import type { MessageStore } from "./messaging.ts";
import type { AuditLog, AuditTree } from "./audit.ts";
import type { IdempotencyStore } from "./idempotency.ts";
import type { WebhookOutbox, WebhookStore } from "./webhooks.ts";
import type { AnonymousLimitStore, PlanStore, PolicyStore } from "./guard-rails.ts";
import type { BacklogStore, BuildSessionStore, DecisionLogStore, ImportStore, LessonCandidateStore, LessonStore, ProjectStore, RecordEventStore, RuleStore, UsageStore } from "./session-state.ts";
import type { NoticeStore } from "./notices.ts";
import type { LinkedIdentityStore, PendingSignUpStore, PersonSessionStore, PersonStore, PersonTokenStore, SignInThrottleStore, WorkspaceLifecycleStore, WorkspacePeopleStore } from "./people.ts";
import type { OAuthStore } from "./oauth.ts";
import type { StatsStore } from "./telemetry.ts";

// Transactions and wake-ups: every store bound to the pool or to one transaction, the runner of
// transactions, and the notifier of long-polling waiters. Every port's general rules:
// src/ports.ts.

/** Every store, bound either to the pool or to one transaction. */
export interface Stores {
  workspaces: WorkspaceStore;
  accounts: AccountStore;
  credentials: CredentialStore;
  messages: MessageStore;
  audit: AuditLog;
  auditTree: AuditTree;
  idempotency: IdempotencyStore;
  webhooks: WebhookStore;
  outbox: WebhookOutbox;
  policies: PolicyStore;
  plans: PlanStore;
  projects: ProjectStore;
  decisions: DecisionLogStore;
  recordEvents: RecordEventStore;
  buildSessions: BuildSessionStore;
  backlog: BacklogStore;
  notices: NoticeStore;
  people: PersonStore;
  personSessions: PersonSessionStore;
  signInThrottle: SignInThrottleStore;
  anonymousLimits: AnonymousLimitStore;
  lessons: LessonStore;
  candidates: LessonCandidateStore;
  rules: RuleStore;
  usage: UsageStore;
  imports: ImportStore;
  oauth: OAuthStore;
  personTokens: PersonTokenStore;
  pendingSignUps: PendingSignUpStore;
  linkedIdentities: LinkedIdentityStore;
  workspacePeople: WorkspacePeopleStore;
  workspaceLifecycle: WorkspaceLifecycleStore;
  stats: StatsStore;
}

/** Runs a unit of work in one transaction. */
export interface TxRunner {
  /**
   * Runs `fn` with stores bound to a new transaction; commits when it resolves, rolls back
   * (leaving none of its writes) when it throws, and rethrows.
   */
  run<T>(fn: (stores: Stores) => Promise<T>): Promise<T>;
}

/** Wakes long-polling claimers when messages become claimable (LISTEN/NOTIFY in PostgreSQL). */
export interface WakeupNotifier {
  /**
   * Resolves when messages may have become claimable for the recipient, when `timeoutMs`
   * passes, or when `signal` aborts, whichever comes first. Never rejects. Spurious wake-ups
   * are allowed; callers claim again and wait again.
   */
  waitForMessages(p: { workspaceId: string; recipientId: string; timeoutMs: number; signal?: AbortSignal }): Promise<void>;
  /** Wakes the recipient's waiters (in every process sharing the adapter's channel). */
  notifyMessages(p: { workspaceId: string; recipientId: string }): Promise<void>;
  /**
   * Calls `onWake` each time messages may have become claimable for the recipient (every
   * notification of it, from any process sharing the channel; and, after a lost connection to
   * the channel is back, once, since notifications may have been missed), until the returned
   * function is called. Never throws; `onWake` is called synchronously from the notification
   * and must not throw. Spurious calls are allowed.
   */
  watchMessages(p: { workspaceId: string; recipientId: string; onWake: () => void }): () => void;
}
