export { workspaces, persons } from "./workspaces.ts";
export { aiAccounts, credentials } from "./access.ts";
export { messages } from "./messages.ts";
export { idempotencyKeys } from "./idempotency-keys.ts";
export { auditLog, auditChain, auditUnsealed } from "./audit-log.ts";
export { webhooks, webhookOutbox } from "./webhooks.ts";
export { policies, policyVersions, policyAcknowledgements, workspacePlans, rateLimitCounters } from "./guard-rails.ts";
export { projects, decisionLogEntries, decisionSourceAmendments, sessionStateEvents, buildSessions, backlogItems } from "./session-state.ts";
