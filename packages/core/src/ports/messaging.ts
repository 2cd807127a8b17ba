import type { CallerGuard } from "../access/caller-guard.ts";
import type { NewAuditEntry } from "../audit/audit-entry.ts";
import type { IdempotencyRecord } from "../idempotency/idempotency-record.ts";
import type { MessageRecord, MessageState, NewMessage, Priority } from "../messaging/message.ts";

// The messaging seam: messages, their leases and their reads. Every port's general rules:
// src/ports.ts.

/** The result of a guarded lease write: the updated record, or what the store saw instead. */
export type LeaseWriteResult =
  | { ok: true; message: MessageRecord }
  /** Nothing was written. `snapshot` is the message as it stands (null when missing or not the caller's) and `now` the clock the guard used. */
  | { ok: false; snapshot: MessageRecord | null; now: Date };

/** What `MessageStore.acceptSend` did. */
export type AcceptSendResult =
  /** Written; `heldBy` names the approval policy that held it (its state then `held_for_approval`). */
  | { kind: "accepted"; message: MessageRecord; heldBy?: { policyId: string; policyName: string } }
  | { kind: "idempotency_exists"; record: IdempotencyRecord }
  | { kind: "recipient_gone" }
  | { kind: "policy_unacknowledged" }
  /** The caller guard failed (the sender's account or workspace is not active): nothing was written. */
  | { kind: "caller_refused" };

/** What `MessageStore.handOffIfHeld` did. */
export type HandOffResult =
  | { kind: "handed_off"; message: MessageRecord }
  /** The new recipient is no longer addressable under the resolved name (revoked or renamed since resolution), or is the caller: nothing was written. */
  | { kind: "recipient_gone" }
  /** The lease guard matched nothing: `snapshot` is the caller's message as it stands (null when missing or not the caller's) and `now` the clock the guard used. */
  | { kind: "refused"; snapshot: MessageRecord | null; now: Date };

/** Exact-match filters of a message list: each null or absent matches every message. */
export interface MessageMatch {
  recipientName?: string | null;
  senderName?: string | null;
  template?: string | null;
  /** A message id or a correlation id: the messages whose id or correlation id equals it. */
  search?: string | null;
}

/** Messages waiting in a workspace: per recipient (pending, held) and the dead letters. */
export interface WaitingCounts {
  recipients: { accountId: string; friendlyName: string; pending: number; held: number }[];
  deadLettered: number;
}

/** What waits to be claimed by one recipient (the `agentq://inbox` resource): counts by priority and the oldest claimable message. */
export interface InboxSnapshot {
  /** Claimable messages per priority, each count stopping at the `countLimit` asked for (a count equal to it means "at least"). */
  claimable: Record<Priority, number>;
  /** The claimable message accepted first (ties by id), its payload not read (null); null when nothing is claimable. */
  oldest: MessageRecord | null;
  /** The store's clock when it looked. */
  now: Date;
}

/** A recipient a process watches for messages becoming claimable later (a lease running out, a nack's or a send's delay ending). */
export interface WatchedRecipient {
  workspaceId: string;
  recipientId: string;
}

/**
 * Messages and their leases. `caller` (send, claim, ack): when given, the write happens only if
 * that account is active and its workspace active, read in the same statement (the request's
 * one statement, docs/performance.md lever 3); a claim or ack whose caller guard fails writes
 * nothing and answers as if nothing was claimable or held, and the core then checks the caller
 * afresh (`verifyCaller`) before answering.
 */
export interface MessageStore {
  /**
   * The whole write of a send, atomically (one statement in PostgreSQL): when `idempotency` is
   * given, insert it unless the key exists; then the message, its audit row, and one outbox row
   * per live webhook of the recipient; then wake the recipient's waiters on commit. Its guards,
   * checked in the same statement: the recipient is still addressable under the resolved name
   * (`message.recipientId` holds `message.recipientName` and is not revoked), and the sender
   * has acknowledged the current version of every required policy of the workspace.
   * - `idempotency_exists`: the key was already stored (possibly by a concurrent request that
   *   committed first; the call waits for it): nothing else was written. A stored key wins over
   *   a failed guard.
   * - `recipient_gone`: the recipient is no longer addressable under that name (revoked or
   *   renamed since resolution): nothing was written.
   * - `policy_unacknowledged`: the sender has not acknowledged a required policy: nothing was
   *   written.
   * - `caller_refused`: with `caller`, the sender's account is not active in an active
   *   workspace (checked in the same statement, before the key): nothing was written. The
   *   message row's sender name is then the account's name as the statement reads it.
   * Approval (DESIGN §2c), decided in the same statement: when the current version of an
   * approval policy of the workspace holds the send (`holdsSend`: template, recipient name,
   * sender name as written, priority; the first by name), the message is stored
   * `held_for_approval` with that policy's id, no one is woken and no webhook delivery is
   * written; the stored idempotent response then says so (`state: "held_for_approval"`,
   * `approval: {policy_id, policy_name}`), and, with `heldAuditId`, a second audit row
   * `message.held_for_approval` under that id (actor, time and request of `audit`; details
   * `policy_id`, `policy_name`).
   */
  acceptSend(p: { message: NewMessage; audit: NewAuditEntry; heldAuditId?: string | null; idempotency: IdempotencyRecord | null; caller?: CallerGuard | null }): Promise<AcceptSendResult>;

  /**
   * Claims up to `max` claimable messages of the recipient in dequeue order (priority
   * descending, accepted time ascending, id ascending), skipping rows other claimers hold
   * locks on. Claimable: stored state pending with visibleAt <= now, or held with the lease run
   * out (visibleAt <= now), and not expired. Each claimed message gets a fresh lease id,
   * visibleAt = now + visibilityTimeoutMs, leaseClaimedAt = now, leaseExtensions = 0,
   * deliveryCount + 1, and one audit row `message.claimed` (ids from `auditIds` in order).
   * A candidate whose deliveryCount is already >= maxDeliveries is dead-lettered instead (audit
   * row `message.dead_lettered`) and reported in `deadLettered`.
   * With `threadId`, only messages of that thread are candidates (the thread's first message and
   * those whose threadId is it).
   * Concurrency: two concurrent claims never return the same message (SKIP LOCKED).
   */
  claimBatch(p: { workspaceId: string; recipientId: string; max: number; visibilityTimeoutMs: number; maxDeliveries: number; auditIds: readonly string[]; requestId: string | null; credentialId: string | null; caller?: CallerGuard | null; threadId?: string | null }): Promise<{ claimed: MessageRecord[]; deadLettered: string[] }>;

  /**
   * Acknowledges a held message: guarded by recipient, lease id and lease still live
   * (visibleAt > now) and not expired, in one statement with its audit row. Sets state
   * acknowledged, acknowledgedAt = now, outcomeSummary.
   */
  ackIfHeld(p: { workspaceId: string; messageId: string; recipientId: string; leaseId: string; outcomeSummary: string | null; audit: NewAuditEntry; caller?: CallerGuard | null }): Promise<LeaseWriteResult>;

  /**
   * Acknowledges several held messages of one recipient at once (one statement in PostgreSQL):
   * each item guarded on its own exactly as `ackIfHeld` (its own lease, live and not expired),
   * each acknowledged item with its own audit row. Returns one result per item, in item order:
   * the acknowledged message, or the snapshot and clock explaining why that item's guard matched
   * nothing. Message ids must be distinct (the caller removes repeats).
   */
  ackBatchIfHeld(p: { workspaceId: string; recipientId: string; items: readonly { messageId: string; leaseId: string; outcomeSummary: string | null; audit: NewAuditEntry }[]; caller?: CallerGuard | null }): Promise<LeaseWriteResult[]>;

  /**
   * Declines a held message: guarded like ack, plus no nack of this message within
   * `minIntervalMs` before now, and now + redeliverAfterMs before expiry. Sets state pending,
   * visibleAt = now + redeliverAfterMs, lastNackedAt = now, clears the lease; writes the audit
   * row; wakes waiters when the message is claimable at once.
   */
  nackIfHeld(p: { workspaceId: string; messageId: string; recipientId: string; leaseId: string; redeliverAfterMs: number; minIntervalMs: number; audit: NewAuditEntry }): Promise<LeaseWriteResult>;

  /**
   * Extends a held lease: guarded like ack, plus no extension within `minIntervalMs`, fewer
   * than `maxExtensions` so far, new expiry = min(now + visibilityTimeoutMs, leaseClaimedAt +
   * cumulativeCapMs) strictly later than the current one, and new expiry <= expiresAt. Sets
   * visibleAt to the new expiry, leaseExtensions + 1, lastExtendedAt = now; writes the audit row.
   */
  extendIfHeld(p: { workspaceId: string; messageId: string; recipientId: string; leaseId: string; visibilityTimeoutMs: number; minIntervalMs: number; maxExtensions: number; cumulativeCapMs: number; audit: NewAuditEntry }): Promise<LeaseWriteResult>;

  /**
   * Hands a held message to another AI account of the workspace (DESIGN §2c): guarded like ack
   * (the caller's message, this lease, live by the store clock, not expired) and by the new
   * recipient `to` still holding its resolved name, not revoked, and not being the caller, in
   * one statement with its audit row. The lease ends (lease fields cleared, last nack
   * forgotten); the message is addressed to `to` (recipient id and name), state pending, visible
   * now, delivery count kept; wakes the new recipient's waiters. A recipient guard failure wins
   * over a lease refusal.
   */
  handOffIfHeld(p: { workspaceId: string; messageId: string; recipientId: string; leaseId: string; to: { accountId: string; friendlyName: string }; audit: NewAuditEntry }): Promise<HandOffResult>;

  /**
   * Decides on a message held for approval (DESIGN §2c), in one guarded write with its audit row:
   * guarded by state held_for_approval and not expired (by the store clock). Approved: pending,
   * visible at max(visibleAt, now), one webhook delivery per live matching webhook of the
   * recipient (as a send writes them) and a wake-up when claimable now. Rejected: the terminal
   * `rejected`. `refused`: nothing written; the message as it stands (null when missing) and the
   * clock the guard used. `now` is that clock either way.
   */
  decideApproval(p: { workspaceId: string; messageId: string; approve: boolean; audit: NewAuditEntry }): Promise<{ kind: "decided"; message: MessageRecord; now: Date } | { kind: "refused"; snapshot: MessageRecord | null; now: Date }>;

  /** How many messages of the workspace wait for approval (held, not expired), counting up to `limit` (one bounded read of an index). */
  countHeldForApproval(p: { workspaceId: string; limit: number }): Promise<number>;

  /** Messages of the workspace held for approval and not expired, oldest first (id ascending) after the id `after`; at most `limit + 1`. */
  listHeldForApproval(p: { workspaceId: string; after: string | null; limit: number }): Promise<MessageRecord[]>;

  /** The message if `accountId` is its sender or recipient (null: any message of the workspace, for a person's session), else null. */
  findForParticipant(p: { workspaceId: string; messageId: string; accountId: string | null }): Promise<MessageRecord | null>;

  /**
   * A page of a thread (DESIGN §2c): its first message (id `threadId`) and the messages whose
   * threadId is it, those `accountId` sent or received (null: every one, for a person's
   * session), oldest first (id ascending), after the id `after`; at most `limit + 1`.
   */
  listThread(p: { workspaceId: string; threadId: string; accountId: string | null; after: string | null; limit: number }): Promise<MessageRecord[]>;

  /** The store's clock (the database clock for PostgreSQL). */
  now(): Promise<Date>;

  /**
   * Messages the account sent or received (role), newest first (id descending), optionally
   * filtered by effective state and by `match` (the names and template as the envelope records
   * them at send time). `after` is a message id. A null account: every message of the workspace.
   */
  listForParticipant(p: { workspaceId: string; accountId: string | null; role: "sent" | "received" | "any"; state: MessageState | null; match?: MessageMatch; after: string | null; limit: number }): Promise<MessageRecord[]>;

  /**
   * What waits in the workspace (one read): per recipient that has any, its pending and held
   * messages not yet expired at `now`, under the account's current name, by name; and the
   * workspace's dead-lettered messages.
   */
  countWaiting(p: { workspaceId: string; now: Date }): Promise<WaitingCounts>;

  /**
   * What the recipient could claim now (one read, nothing locked): per priority, how many
   * messages are claimable (stored state pending or held with visibleAt <= now, not expired),
   * each count stopping at `countLimit`; and the claimable message accepted first.
   */
  inboxOf(p: { workspaceId: string; recipientId: string; countLimit: number }): Promise<InboxSnapshot>;

  /**
   * The recipients among `recipients` (at most 1,000) for which a message became claimable by
   * time passing in (after, now]: a held message whose lease ran out, or a pending one whose
   * visibility was deferred (a nack's redelivery delay, a send's deliver_after); a message made
   * claimable at once by a write (a send, a nack without delay) is not counted: that write
   * notified. Also the earliest such deferred visibility still ahead of now among them (null
   * when none), so the caller can look again exactly then. Per recipient, at most `scanLimit`
   * of its pending and held messages are looked at (in claim order): beyond that its inbox is
   * not empty anyway. Any workspace (the caller's own watch list); nothing is locked.
   */
  becameClaimable(p: { recipients: readonly WatchedRecipient[]; after: Date; scanLimit: number }): Promise<{ due: WatchedRecipient[]; nextAt: Date | null; now: Date }>;

  /** Dead-lettered messages of the workspace, newest first; `after` is a message id. */
  listDeadLettered(p: { workspaceId: string; after: string | null; limit: number }): Promise<MessageRecord[]>;

  /** Returns a dead-lettered message to pending (deliveryCount 0, visible now), with its audit row; null when it is not dead-lettered. Wakes waiters. */
  release(p: { workspaceId: string; messageId: string; audit: NewAuditEntry }): Promise<MessageRecord | null>;

  /** Deletes a dead-lettered message (its audit rows remain), with its audit row; false when it is not dead-lettered. */
  purge(p: { workspaceId: string; messageId: string; audit: NewAuditEntry }): Promise<boolean>;

  /**
   * Withholds a message after a legal notice (DESIGN §2b): its state becomes `withheld` (so it
   * leaves the claim index and every lease write's guard), the state it had is kept for the
   * restoration, a lease it was held under ends, and its pending or retrying webhook deliveries
   * die (last error "legally withheld"); with its audit row, in one statement.
   * `already_withheld` writes nothing.
   */
  withhold(p: { workspaceId: string; messageId: string; audit: NewAuditEntry }): Promise<{ kind: "withheld"; message: MessageRecord } | { kind: "already_withheld" } | { kind: "not_found" }>;

  /**
   * Lifts a withholding: the message returns to the state it had (a held one to pending, visible
   * at once, since its lease ended), with its audit row; wakes waiters when it is claimable.
   * `not_withheld` writes nothing.
   */
  restoreWithheld(p: { workspaceId: string; messageId: string; audit: NewAuditEntry }): Promise<{ kind: "restored"; message: MessageRecord } | { kind: "not_withheld" }>;

  /**
   * Marks up to `auditIds.length` pending or held messages past their expiry as expired, each
   * with an audit row `message.expired` (no actor), any workspace. Returns how many it marked.
   */
  expireDue(p: { auditIds: readonly string[] }): Promise<number>;
}
