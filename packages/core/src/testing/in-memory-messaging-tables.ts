import type { AuditEntry } from "../audit/audit-entry.ts";
import type { IdempotencyRecord } from "../idempotency/idempotency-record.ts";
import type { MessageRecord } from "../messaging/message.ts";
import { InMemoryTable, type InMemoryTransaction } from "./in-memory-transaction.ts";

/**
 * The rows behind the in-memory messaging stores, shared by InMemoryMessageStore (which writes
 * audit and idempotency rows as part of a send), InMemoryAuditLog and InMemoryIdempotencyStore.
 */
export class InMemoryMessagingTables {
  readonly messages = new InMemoryTable<MessageRecord>();
  readonly audit = new InMemoryTable<AuditEntry>();
  /** Keyed by `idempotencyKeyOf`. */
  readonly idempotency = new InMemoryTable<IdempotencyRecord>();
  /** The open transaction that claimed an idempotency key, until it settles. */
  readonly idempotencyOwners = new Map<string, InMemoryTransaction>();
  /** Workspaces whose seal lock is held. */
  readonly sealLocks = new Set<string>();
}

/** The table key of an idempotency record. */
export function idempotencyKeyOf(p: { workspaceId: string; accountId: string; key: string }): string {
  return JSON.stringify([p.workspaceId, p.accountId, p.key]);
}
