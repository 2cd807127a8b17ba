import type { AcceptSendResult, CallerGuard, HandOffResult, IdempotencyRecord, LeaseWriteResult, MessageRecord, MessageState, MessageStore, MessageMatch, NewAuditEntry, NewMessage, WaitingCounts, InboxSnapshot, WatchedRecipient } from "@agentq/core";
import { withPgErrors } from "./pg-errors.ts";
import type { SendBatcher } from "./pg-send-batcher.ts";
import { idempotencyKeysFindAny } from "./queries/idempotency-keys.ts";
import {
  messagesAcceptSend, messagesAckBatchIfHeld, messagesDecideApproval, messagesListHeldForApproval, messagesCountHeldForApproval, messagesAckIfHeld, messagesClaimBatch, messagesExpireDue, messagesExtendIfHeld, messagesFindForParticipant, messagesHandOffIfHeld, messagesLeaseSnapshot, messagesLeaseSnapshots, messagesCountWaiting, messagesListDeadLettered, messagesInboxOf, messagesBecameClaimable,
  messagesListForParticipant, messagesListThread, messagesNackIfHeld, messagesNow, messagesPurge, messagesRelease, messagesWithhold, messagesRestoreWithheld,
} from "./queries/messages.ts";
import type { SqlClient } from "./sql-client.ts";

/**
 * MessageStore on PostgreSQL, bound to a pool or to one transaction. Every write is one
 * statement (see src/queries/messages.ts); leases are decided by the database clock. Wake-ups
 * are pg_notify calls inside those statements, delivered when the transaction commits.
 */
export class PgMessageStore implements MessageStore {
  /** `batcher`: group commit of sends, for a store bound to the pool (never to a transaction). */
  constructor(
    private readonly sql: SqlClient,
    private readonly batcher: SendBatcher | null = null,
  ) {}

  acceptSend(p: { message: NewMessage; audit: NewAuditEntry; heldAuditId?: string | null; idempotency: IdempotencyRecord | null; caller?: CallerGuard | null }): Promise<AcceptSendResult> {
    return withPgErrors(async () => {
      // A conflicting key's row can vanish between the insert and the read only when the purge
      // deleted it as expired; then the send is tried again (and this time stores the key).
      for (let attempt = 0; ; attempt++) {
        const outcome = this.batcher === null ? await messagesAcceptSend(this.sql, p) : await this.batcher.submit(p);
        if (outcome.kind !== "idempotency_exists") return outcome;
        const key = p.idempotency as IdempotencyRecord;
        // The rare path: ON CONFLICT waited for the conflicting transaction to commit, so this
        // read (a new statement under READ COMMITTED) sees its record.
        const record = await idempotencyKeysFindAny(this.sql, key);
        if (record !== null || attempt >= 2) {
          if (record === null) throw new Error("acceptSend: the conflicting idempotency key vanished repeatedly");
          return { kind: "idempotency_exists", record };
        }
      }
    });
  }

  claimBatch(p: { workspaceId: string; recipientId: string; max: number; visibilityTimeoutMs: number; maxDeliveries: number; auditIds: readonly string[]; requestId: string | null; credentialId: string | null; caller?: CallerGuard | null; threadId?: string | null }): Promise<{ claimed: MessageRecord[]; deadLettered: string[] }> {
    return withPgErrors(() => messagesClaimBatch(this.sql, p));
  }

  ackIfHeld(p: { workspaceId: string; messageId: string; recipientId: string; leaseId: string; outcomeSummary: string | null; audit: NewAuditEntry; caller?: CallerGuard | null }): Promise<LeaseWriteResult> {
    return withPgErrors(async () => this.result(await messagesAckIfHeld(this.sql, p), p));
  }

  ackBatchIfHeld(p: { workspaceId: string; recipientId: string; items: readonly { messageId: string; leaseId: string; outcomeSummary: string | null; audit: NewAuditEntry }[]; caller?: CallerGuard | null }): Promise<LeaseWriteResult[]> {
    return withPgErrors(async () => {
      const results: (LeaseWriteResult | undefined)[] = p.items.map(() => undefined);
      let todo = p.items.map((item, i) => ({ item, i }));
      // The statement updates each row by the ctid it found: a row another transaction changed
      // meanwhile (an extend_lease of the same lease, say) is skipped, though the lease may still
      // hold. Items whose snapshot shows their lease live are therefore tried once more.
      for (let attempt = 0; todo.length > 0; attempt++) {
        const written = await messagesAckBatchIfHeld(this.sql, { ...p, items: todo.map(({ item }) => item) });
        todo.forEach(({ i }, k) => {
          const message = written.get(k);
          if (message !== undefined) results[i] = { ok: true, message };
        });
        const refused = todo.filter(({ i }) => results[i] === undefined);
        if (refused.length === 0) break;
        // Only the refused items need their snapshot: one read for all of them.
        const { snapshots, now } = await messagesLeaseSnapshots(this.sql, { workspaceId: p.workspaceId, recipientId: p.recipientId, messageIds: refused.map(({ item }) => item.messageId) });
        const retry: typeof todo = [];
        refused.forEach((r, k) => {
          const snapshot = snapshots[k] ?? null;
          if (attempt === 0 && leaseLive(snapshot, r.item.leaseId, now)) retry.push(r);
          else results[r.i] = { ok: false, snapshot, now };
        });
        todo = retry;
      }
      return results as LeaseWriteResult[];
    });
  }

  nackIfHeld(p: { workspaceId: string; messageId: string; recipientId: string; leaseId: string; redeliverAfterMs: number; minIntervalMs: number; audit: NewAuditEntry }): Promise<LeaseWriteResult> {
    return withPgErrors(async () => this.result(await messagesNackIfHeld(this.sql, p), p));
  }

  extendIfHeld(p: { workspaceId: string; messageId: string; recipientId: string; leaseId: string; visibilityTimeoutMs: number; minIntervalMs: number; maxExtensions: number; cumulativeCapMs: number; audit: NewAuditEntry }): Promise<LeaseWriteResult> {
    return withPgErrors(async () => this.result(await messagesExtendIfHeld(this.sql, p), p));
  }

  handOffIfHeld(p: { workspaceId: string; messageId: string; recipientId: string; leaseId: string; to: { accountId: string; friendlyName: string }; audit: NewAuditEntry }): Promise<HandOffResult> {
    return withPgErrors(async () => {
      const outcome = await messagesHandOffIfHeld(this.sql, p);
      if (outcome !== null) return outcome;
      const { snapshot, now } = await messagesLeaseSnapshot(this.sql, p);
      return { kind: "refused", snapshot, now };
    });
  }

  /** A written row, or the snapshot read that explains why the guard matched nothing. */
  private async result(written: MessageRecord | null, p: { workspaceId: string; messageId: string; recipientId: string }): Promise<LeaseWriteResult> {
    if (written !== null) return { ok: true, message: written };
    const { snapshot, now } = await messagesLeaseSnapshot(this.sql, p);
    return { ok: false, snapshot, now };
  }

  decideApproval(p: { workspaceId: string; messageId: string; approve: boolean; audit: NewAuditEntry }): Promise<{ kind: "decided"; message: MessageRecord; now: Date } | { kind: "refused"; snapshot: MessageRecord | null; now: Date }> {
    return withPgErrors(async () => {
      const { message, now } = await messagesDecideApproval(this.sql, p);
      if (message !== null) return { kind: "decided", message, now };
      const snapshot = await messagesFindForParticipant(this.sql, { workspaceId: p.workspaceId, messageId: p.messageId, accountId: null });
      return { kind: "refused", snapshot, now };
    });
  }

  countHeldForApproval(p: { workspaceId: string; limit: number }): Promise<number> {
    return withPgErrors(() => messagesCountHeldForApproval(this.sql, p));
  }

  listHeldForApproval(p: { workspaceId: string; after: string | null; limit: number }): Promise<MessageRecord[]> {
    return withPgErrors(() => messagesListHeldForApproval(this.sql, p));
  }

  findForParticipant(p: { workspaceId: string; messageId: string; accountId: string | null }): Promise<MessageRecord | null> {
    return withPgErrors(() => messagesFindForParticipant(this.sql, p));
  }

  now(): Promise<Date> {
    return withPgErrors(() => messagesNow(this.sql));
  }

  listForParticipant(p: { workspaceId: string; accountId: string | null; role: "sent" | "received" | "any"; state: MessageState | null; match?: MessageMatch; after: string | null; limit: number }): Promise<MessageRecord[]> {
    return withPgErrors(() => messagesListForParticipant(this.sql, p));
  }

  listThread(p: { workspaceId: string; threadId: string; accountId: string | null; after: string | null; limit: number }): Promise<MessageRecord[]> {
    return withPgErrors(() => messagesListThread(this.sql, p));
  }

  countWaiting(p: { workspaceId: string; now: Date }): Promise<WaitingCounts> {
    return withPgErrors(() => messagesCountWaiting(this.sql, p));
  }

  inboxOf(p: { workspaceId: string; recipientId: string; countLimit: number }): Promise<InboxSnapshot> {
    return withPgErrors(() => messagesInboxOf(this.sql, p));
  }

  becameClaimable(p: { recipients: readonly WatchedRecipient[]; after: Date; scanLimit: number }): Promise<{ due: WatchedRecipient[]; nextAt: Date | null; now: Date }> {
    return withPgErrors(() => messagesBecameClaimable(this.sql, p));
  }

  listDeadLettered(p: { workspaceId: string; after: string | null; limit: number }): Promise<MessageRecord[]> {
    return withPgErrors(() => messagesListDeadLettered(this.sql, p));
  }

  release(p: { workspaceId: string; messageId: string; audit: NewAuditEntry }): Promise<MessageRecord | null> {
    return withPgErrors(() => messagesRelease(this.sql, p));
  }

  purge(p: { workspaceId: string; messageId: string; audit: NewAuditEntry }): Promise<boolean> {
    return withPgErrors(() => messagesPurge(this.sql, p));
  }

  withhold(p: { workspaceId: string; messageId: string; audit: NewAuditEntry }): Promise<{ kind: "withheld"; message: MessageRecord } | { kind: "already_withheld" } | { kind: "not_found" }> {
    return withPgErrors(() => messagesWithhold(this.sql, p));
  }

  async restoreWithheld(p: { workspaceId: string; messageId: string; audit: NewAuditEntry }): Promise<{ kind: "restored"; message: MessageRecord } | { kind: "not_withheld" }> {
    const message = await withPgErrors(() => messagesRestoreWithheld(this.sql, p));
    return message === null ? { kind: "not_withheld" } : { kind: "restored", message };
  }

  expireDue(p: { auditIds: readonly string[] }): Promise<number> {
    return withPgErrors(() => messagesExpireDue(this.sql, p));
  }
}

/** Whether `leaseId` is the message's live lease: the batch ack's guard, read from a snapshot. */
function leaseLive(m: MessageRecord | null, leaseId: string, now: Date): boolean {
  return m !== null && m.state === "held" && m.leaseId === leaseId && m.visibleAt.getTime() > now.getTime() && m.expiresAt.getTime() > now.getTime();
}
