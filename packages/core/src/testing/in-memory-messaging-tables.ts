import type { NewAuditEntry } from "../audit/audit-entry.ts";
import type { IdempotencyRecord } from "../idempotency/idempotency-record.ts";
import type { MessageRecord, MessageState } from "../messaging/message.ts";
import type { AuditChainLink, MinuteStats, StoredCheckpoint } from "../ports.ts";
import { InMemoryTable, type InMemoryTransaction } from "./in-memory-transaction.ts";

/**
 * The rows behind the in-memory messaging stores, shared by InMemoryMessageStore (which writes
 * audit and idempotency rows as part of a send), InMemoryAuditLog and InMemoryIdempotencyStore.
 */
export class InMemoryMessagingTables {
  readonly messages = new InMemoryTable<MessageRecord>();
  /** The state a withheld message had before it was withheld, keyed by message id. */
  readonly withheldFrom = new InMemoryTable<MessageState>();
  /** Audit rows as inserted (never updated), keyed by id. */
  readonly audit = new InMemoryTable<NewAuditEntry>();
  /** The hash chain's links, keyed by `auditLinkKeyOf` (workspace and seq). */
  readonly auditChain = new InMemoryTable<AuditChainLinkRow>();
  /** Each leaf's stored tree hashes (its own, then the subtrees it completes), keyed by `auditLinkKeyOf` (workspace and leaf index). */
  readonly auditTreeHashes = new InMemoryTable<Uint8Array[]>();
  /** How many leaves each workspace's tree holds, keyed by workspace id. */
  readonly auditTreeSizes = new InMemoryTable<number>();
  /** Each workspace's latest signed checkpoint, keyed by workspace id. */
  readonly auditCheckpoints = new InMemoryTable<StoredCheckpoint>();
  /** Workspaces whose chain predates their tree (what migration 0019 lists in PostgreSQL), keyed by workspace id. */
  readonly auditTreeBacklog = new InMemoryTable<true>();
  /** Keyed by `idempotencyKeyOf`. */
  readonly idempotency = new InMemoryTable<IdempotencyRecord>();
  /** The open transaction that claimed an idempotency key, until it settles. */
  readonly idempotencyOwners = new Map<string, InMemoryTransaction>();
  /** The minute series (StatsStore), keyed by workspace id and the minute's ISO start. */
  readonly minuteStats = new InMemoryTable<MinuteStats & { workspaceId: string }>();
  /** The minute series per recipient, keyed by workspace id, account id and the minute's ISO start. */
  readonly recipientMinuteStats = new InMemoryTable<MinuteStats & { workspaceId: string; aiAccountId: string }>();
  /** Workspaces whose seal lock is held. */
  readonly sealLocks = new Set<string>();
}

/** A stored chain link: the port's link plus its workspace and when it was sealed. */
export interface AuditChainLinkRow extends AuditChainLink {
  workspaceId: string;
  sealedAt: Date;
}

/** The table key of a chain link: its workspace and seq. */
export function auditLinkKeyOf(workspaceId: string, seq: number): string {
  return JSON.stringify([workspaceId, seq]);
}

/** The table key of an idempotency record. */
export function idempotencyKeyOf(p: { workspaceId: string; accountId: string; key: string }): string {
  return JSON.stringify([p.workspaceId, p.accountId, p.key]);
}
