/**
 * Every port of the core: the seams through which use cases reach storage, time, ids and
 * wake-ups. This file is the one place to look: it names every port, area by area, and each
 * area's seam is written and documented in its own file under `ports/` (every method: its
 * semantics, concurrency and outcomes). Adapters: `InMemory*` in @agentq/core/testing, `Pg*` in
 * @agentq/postgres. Every port has a contract suite (`describe<Port>Contract`) that both adapters
 * pass. The core imports its ports from here.
 *
 * General rules for every store method:
 * - Every read and write is scoped by `workspaceId`; a record of another workspace is
 *   indistinguishable from a missing one (null / not found).
 * - Methods never throw DomainError for expected outcomes; they return a tagged result and the
 *   use case decides the code. They throw only for infrastructure faults (which the edges
 *   report as SVC_SERVICE_UNAVAILABLE).
 * - Where a method says "now", it means the adapter's clock: the database clock for
 *   PostgreSQL (leases are decided by the database), the injected Clock for InMemory.
 * - Paged lists take `after` (an opaque keyset position the store itself returned as
 *   `position` of an item, or null for the first page) and `limit`, and return at most
 *   `limit + 1` items so the caller can tell whether another page exists.
 */

// Time and ids
export type { Clock } from "./ports/clock.ts";
export type { IdSource } from "./ids.ts";

// Transactions and wake-ups
export type { Stores, TxRunner, WakeupNotifier } from "./ports/transactions.ts";

// The outcome of every compare-and-set write
export type { ReplaceResult } from "./ports/compare-and-set.ts";

// Workspaces, AI accounts, credentials
export type { WorkspaceStore, AccountStore, CredentialStore } from "./ports/access.ts";

// People, sessions, sign-in, people of a workspace, OIDC (DESIGN §2b)
export type { PersonStore, PersonMfa, SecretSealer, PersonSessionStore, ThrottleWindowCount, SignInThrottleStore, PasswordHasher, PersonTokenStore, PendingSignUpStore, LinkedIdentityStore, WorkspacePeopleStore, WorkspaceLifecycleStore, OidcProvider } from "./ports/people.ts";

// OAuth 2.0 for MCP clients (DESIGN §2b)
export type { OAuthStore } from "./ports/oauth.ts";

// Messages
export type { LeaseWriteResult, AcceptSendResult, HandOffResult, MessageMatch, WaitingCounts, InboxSnapshot, WatchedRecipient, MessageStore } from "./ports/messaging.ts";

// The audit log, its chain and the transparency log
export type { AuditSealSession, StoredCheckpoint, AuditTree, AuditChainLink, AuditLog } from "./ports/audit.ts";

// Idempotency
export type { IdempotencyStore } from "./ports/idempotency.ts";

// Webhooks, their outbox, outbound probes
export type { WebhookStore, WebhookOutbox, WebhookFailureReason, WebhookTransport } from "./ports/webhooks.ts";

// Mail
export type { Mailer } from "./ports/mail.ts";

// Guard rails: policies, plans, rate limits, sanctions screening
export type { PolicyStore, PlanStore, RateLimiter, AnonymousLimitStore, ScreenedParty, ScreeningResult, SanctionsScreen } from "./ports/guard-rails.ts";

// Session-state records (SESSION-STATE.md)
export type { ProjectStore, DecisionLogStore, RecordEventStore, BuildSessionStore, BacklogStore, LessonStore, LessonCandidateStore, RuleStore, EnrichmentInput, Enricher, UsageStore, ImportStore } from "./ports/session-state.ts";

// Telemetry: committed messaging events, counted by the metrics adapter (DESIGN §2c)
export type { MessagingEvent, MessageMeter, MinuteStats, StatsStore } from "./ports/telemetry.ts";

// Notices (DESIGN §2b)
export type { NoticeStore } from "./ports/notices.ts";
