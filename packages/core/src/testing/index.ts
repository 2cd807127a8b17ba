// @agentq/core/testing: in-memory adapters for every port, fixtures and the shared contract
// suites ("embed the core in tests"). Contract suites import vitest; import this entry only
// from tests.
export { ManualClock } from "./manual-clock.ts";
export { InMemoryTransaction, InMemoryTable, onRollback, afterCommit } from "./in-memory-transaction.ts";
export { InMemoryMessagingTables, idempotencyKeyOf } from "./in-memory-messaging-tables.ts";
export { InMemoryMessageStore } from "./in-memory-message-store.ts";
export type { RecipientLookup } from "./in-memory-message-store.ts";
export { InMemoryAuditLog } from "./in-memory-audit-log.ts";
export { InMemoryIdempotencyStore } from "./in-memory-idempotency-store.ts";
export { InMemoryWakeupNotifier } from "./in-memory-wakeup-notifier.ts";
export { InMemoryTxRunner } from "./in-memory-tx-runner.ts";
export { createInMemoryDeps, TEST_SECRETS } from "./create-in-memory-deps.ts";
export type { InMemoryWorld } from "./create-in-memory-deps.ts";
export { makeNewMessage, makeAuditEntry, makeIdempotencyRecord } from "./messaging-fixtures.ts";
export { seedWorkspace } from "./messaging-harness.ts";
export type { MessagingHarness, MessagingHarnessFactory, SeededWorkspace } from "./messaging-harness.ts";
export { describeMessageStoreContract } from "./message-store.contract.ts";
export { describeAuditLogContract } from "./audit-log.contract.ts";
export { describeIdempotencyStoreContract } from "./idempotency-store.contract.ts";
export { describeTxRunnerContract } from "./tx-runner.contract.ts";
export { describeWakeupNotifierContract } from "./wakeup-notifier.contract.ts";
export { InMemoryAccessTables, InMemoryWorkspaceStore, InMemoryAccountStore, InMemoryCredentialStore, bindInMemoryAccessStores } from "./in-memory-access.ts";
export type { InMemoryAccessStores } from "./in-memory-access.ts";
export { fixtureId, makeWorkspace, makePerson, makeAccount, makeCredential } from "./access-fixtures.ts";
export type { AccessStoresFactory, AccessStoresUnderTest } from "./access-stores-factory.ts";
export { describeWorkspaceStoreContract } from "./access-workspace-store.contract.ts";
export { describeAccountStoreContract } from "./access-account-store.contract.ts";
export { describeCredentialStoreContract } from "./access-credential-store.contract.ts";
export { bootstrapScenarioWorkspace, seedAccount, seedTokenCredential, scenarioContext } from "./access-scenario.ts";
export type { AccessScenarioWorkspace } from "./access-scenario.ts";
export { ALL_OPERATIONAL_SCOPES, seedTestWorkspace, seedPrincipal, callContext } from "./principal-fixtures.ts";
export { createMessagingScenario } from "./messaging-scenario.ts";
export type { MessagingScenario } from "./messaging-scenario.ts";
export { InMemoryGuardRailTables, InMemoryPolicyStore, InMemoryPlanStore } from "./in-memory-guard-rails.ts";
export { callOperation, refusalCode, refusalOf, sendBody } from "./guard-rail-calls.ts";
export { InMemoryWebhookTables, InMemoryWebhookStore, InMemoryWebhookOutbox, writeSendOutboxRows, filterMatches } from "./in-memory-webhooks.ts";
export { describeWebhookStoresContract, makeWebhook } from "./webhook-stores.contract.ts";
export { describePolicyStoreContract, describePlanStoreContract, describeRateLimiterContract } from "./guard-rail-stores.contract.ts";
