import type { NewAuditEntry } from "../audit/audit-entry.ts";
import type { CallerGuard } from "../access/caller-guard.ts";
import type { AiAccount, Workspace } from "../access/model.ts";
import type { IdempotencyRecord } from "../idempotency/idempotency-record.ts";
import { LIVE_STATES, PRIORITY_RANK, shownState, threadIdOf, type MessageRecord, type MessageState, type NewMessage, type Priority } from "../messaging/message.ts";
import type { AcceptSendResult, Clock, HandOffResult, IdSource, LeaseWriteResult, MessageMatch, MessageStore, WaitingCounts, WakeupNotifier, InboxSnapshot, WatchedRecipient } from "../ports.ts";
import { appendAuditRow } from "./in-memory-audit-log.ts";
import { holdsSend } from "../policies/approval-holds.ts";
import type { Policy } from "../policies/policy.ts";
import { heldSendBody } from "../messaging/approvals.ts";
import { idempotencyKeyOf, type InMemoryMessagingTables } from "./in-memory-messaging-tables.ts";
import { afterCommit, type InMemoryTransaction } from "./in-memory-transaction.ts";
import { writeSendOutboxRows, type InMemoryWebhookTables } from "./in-memory-webhooks.ts";

/** How InMemoryMessageStore checks that a send's recipient is still addressable. */
export interface RecipientLookup {
  findById(p: { workspaceId: string; accountId: string }): Promise<AiAccount | null>;
}

/** How InMemoryMessageStore checks a send's policy gate and its approval policies. */
export interface PolicyGateLookup {
  unacknowledgedRequired(p: { workspaceId: string; accountId: string; limit: number }): Promise<unknown[]>;
  listApproval?(p: { workspaceId: string }): Promise<Policy[]>;
}

/** How InMemoryMessageStore checks a caller guard (the account and its workspace). */
export interface CallerLookup {
  loadPrincipalContext(p: { accountId: string }): Promise<{ account: AiAccount; workspace: Workspace } | null>;
}

/** Claimable at `now`: pending, or held with its lease run out; visible and not expired. */
function isClaimableAt(m: MessageRecord, now: Date): boolean {
  return (m.state === "pending" || m.state === "held") && m.visibleAt.getTime() <= now.getTime() && m.expiresAt.getTime() > now.getTime();
}

/** Its visibility was put off by time, not set by a write that made it claimable at once (and notified): a lease, a nack's delay, a send's deliver_after. */
function isDeferred(m: MessageRecord): boolean {
  if (m.state === "held") return true;
  const setAt = m.lastNackedAt ?? m.acceptedAt;
  return m.visibleAt.getTime() > setAt.getTime();
}

/**
 * In-memory MessageStore. Each method's read-check-write runs without an await in between, so
 * it is atomic with respect to every other call (the in-memory stand-in for row locks and
 * SKIP LOCKED). Leases are decided by the injected clock.
 */
export class InMemoryMessageStore implements MessageStore {
  constructor(
    private readonly deps: { tables: InMemoryMessagingTables; clock: Clock; ids: IdSource; notifier: WakeupNotifier; accounts: RecipientLookup | null; policies?: PolicyGateLookup; webhooks?: InMemoryWebhookTables; callers?: CallerLookup },
    private readonly tx: InMemoryTransaction | null = null,
  ) {}

  /** True when there is no guard, or the guarded caller is active in an active workspace (`workspaceId`). */
  private async callerActive(workspaceId: string, caller: CallerGuard | null | undefined): Promise<boolean> {
    return (await this.guardedCaller(workspaceId, caller)) !== false;
  }

  /** The guarded caller's account when active in an active workspace, false when not, null without a guard. */
  private async guardedCaller(workspaceId: string, caller: CallerGuard | null | undefined): Promise<AiAccount | false | null> {
    if (caller == null || this.deps.callers === undefined) return null;
    const c = await this.deps.callers.loadPrincipalContext({ accountId: caller.accountId });
    return c !== null && c.account.workspaceId === workspaceId && c.account.state === "active" && c.workspace.state === "active" ? c.account : false;
  }

  private get tables(): InMemoryMessagingTables {
    return this.deps.tables;
  }

  private nowMs(): number {
    return this.deps.clock.now().getTime();
  }

  private wake(workspaceId: string, recipientId: string): void {
    afterCommit(this.tx, () => void this.deps.notifier.notifyMessages({ workspaceId, recipientId }));
  }

  async acceptSend(p: { message: NewMessage; audit: NewAuditEntry; heldAuditId?: string | null; idempotency: IdempotencyRecord | null; caller?: CallerGuard | null }): Promise<AcceptSendResult> {
    const caller = await this.guardedCaller(p.message.workspaceId, p.caller);
    if (caller === false) return { kind: "caller_refused" };
    // As the PostgreSQL statement does: with a guard, the sender's name is the account's as read now.
    if (caller !== null) p = { ...p, message: { ...p.message, senderName: caller.friendlyName } };
    for (;;) {
      const recipient = this.deps.accounts ? await this.deps.accounts.findById({ workspaceId: p.message.workspaceId, accountId: p.message.recipientId }) : null;
      const unacknowledged = this.deps.policies ? await this.deps.policies.unacknowledgedRequired({ workspaceId: p.message.workspaceId, accountId: p.message.senderId, limit: 1 }) : [];
      const approvals = (await this.deps.policies?.listApproval?.({ workspaceId: p.message.workspaceId })) ?? [];
      const holder = approvals.find((a) => a.holds !== null && holdsSend(a.holds, p.message)) ?? null;
      // From here to the end of the write there is no await: the check and the inserts are atomic.
      if (p.idempotency) {
        const k = idempotencyKeyOf(p.idempotency);
        const owner = this.tables.idempotencyOwners.get(k);
        if (owner && owner.open && owner !== this.tx) {
          await owner.settled;
          continue;
        }
        const existing = this.tables.idempotency.get(k);
        if (existing && existing.expiresAt.getTime() > this.nowMs()) return { kind: "idempotency_exists", record: existing };
      }
      if (this.deps.accounts && (recipient === null || recipient.state === "revoked" || recipient.friendlyName !== p.message.recipientName)) return { kind: "recipient_gone" };
      if (unacknowledged.length > 0) return { kind: "policy_unacknowledged" };
      const heldBy = holder === null ? null : { policyId: holder.id, policyName: holder.name };
      if (p.idempotency) {
        const record = heldBy === null || p.idempotency.bodyText === null ? p.idempotency : { ...p.idempotency, bodyText: JSON.stringify(heldSendBody(JSON.parse(p.idempotency.bodyText) as Record<string, unknown>, heldBy)) };
        this.tables.idempotency.set(this.tx, idempotencyKeyOf(p.idempotency), record);
      }
      const message: MessageRecord = {
        ...p.message,
        approvalPolicyId: heldBy?.policyId ?? null,
        state: heldBy === null ? "pending" : "held_for_approval",
        deliveryCount: 0,
        leaseId: null,
        leaseClaimedAt: null,
        leaseExtensions: 0,
        lastExtendedAt: null,
        lastNackedAt: null,
        acknowledgedAt: null,
        outcomeSummary: null,
        deadLetteredAt: null,
      };
      this.tables.messages.set(this.tx, message.id, message);
      appendAuditRow(this.tables, this.tx, p.audit);
      if (heldBy !== null) {
        if (p.heldAuditId) appendAuditRow(this.tables, this.tx, { ...p.audit, id: p.heldAuditId, activity: "message.held_for_approval", details: { policy_id: heldBy.policyId, policy_name: heldBy.policyName } });
        return { kind: "accepted", message: structuredClone(message), heldBy };
      }
      if (this.deps.webhooks) writeSendOutboxRows(this.deps.webhooks, this.tx, this.deps.ids, message);
      this.wake(message.workspaceId, message.recipientId);
      return { kind: "accepted", message: structuredClone(message) };
    }
  }

  async claimBatch(p: { workspaceId: string; recipientId: string; max: number; visibilityTimeoutMs: number; maxDeliveries: number; auditIds: readonly string[]; requestId: string | null; credentialId: string | null; caller?: CallerGuard | null; threadId?: string | null }): Promise<{ claimed: MessageRecord[]; deadLettered: string[] }> {
    if (!(await this.callerActive(p.workspaceId, p.caller))) return { claimed: [], deadLettered: [] };
    const now = this.nowMs();
    const threadId = p.threadId ?? null;
    const candidates = this.tables.messages
      .values()
      .filter((m) => m.workspaceId === p.workspaceId && m.recipientId === p.recipientId && (m.state === "pending" || m.state === "held") && m.visibleAt.getTime() <= now && m.expiresAt.getTime() > now)
      .filter((m) => threadId === null || threadIdOf(m) === threadId)
      .sort((a, b) => PRIORITY_RANK[b.priority] - PRIORITY_RANK[a.priority] || a.acceptedAt.getTime() - b.acceptedAt.getTime() || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, Math.min(p.max, p.auditIds.length));
    const claimed: MessageRecord[] = [];
    const deadLettered: string[] = [];
    candidates.forEach((m, i) => {
      const auditId = p.auditIds[i] as string;
      const at = new Date(now);
      if (m.deliveryCount >= p.maxDeliveries) {
        const dead: MessageRecord = { ...m, state: "dead_lettered", deadLetteredAt: at, leaseId: null, leaseClaimedAt: null };
        this.tables.messages.set(this.tx, m.id, dead);
        appendAuditRow(this.tables, this.tx, storeAudit(auditId, m, at, "message.dead_lettered", null, null, p.requestId, { delivery_count: m.deliveryCount, max_deliveries: p.maxDeliveries }));
        deadLettered.push(m.id);
        return;
      }
      const leaseId = this.deps.ids.next();
      const held: MessageRecord = { ...m, state: "held", leaseId, leaseClaimedAt: at, leaseExtensions: 0, lastExtendedAt: null, visibleAt: new Date(now + p.visibilityTimeoutMs), deliveryCount: m.deliveryCount + 1 };
      this.tables.messages.set(this.tx, m.id, held);
      appendAuditRow(this.tables, this.tx, storeAudit(auditId, m, at, "message.claimed", p.recipientId, p.credentialId, p.requestId, { lease_id: leaseId, delivery_count: held.deliveryCount, lease_expires_at: held.visibleAt.toISOString() }));
      claimed.push(held);
    });
    return { claimed, deadLettered };
  }

  /** The message if the guard of a lease write can apply to it: right workspace and recipient. */
  private owned(workspaceId: string, messageId: string, recipientId: string): MessageRecord | null {
    const m = this.tables.messages.get(messageId);
    return m && m.workspaceId === workspaceId && m.recipientId === recipientId ? m : null;
  }

  private isLive(m: MessageRecord, leaseId: string, now: number): boolean {
    return m.state === "held" && m.leaseId === leaseId && m.visibleAt.getTime() > now && m.expiresAt.getTime() > now;
  }

  async ackIfHeld(p: { workspaceId: string; messageId: string; recipientId: string; leaseId: string; outcomeSummary: string | null; audit: NewAuditEntry; caller?: CallerGuard | null }): Promise<LeaseWriteResult> {
    const active = await this.callerActive(p.workspaceId, p.caller);
    const now = this.nowMs();
    const m = this.owned(p.workspaceId, p.messageId, p.recipientId);
    if (!active || !m || !this.isLive(m, p.leaseId, now)) return { ok: false, snapshot: m, now: new Date(now) };
    const next: MessageRecord = { ...m, state: "acknowledged", acknowledgedAt: new Date(now), outcomeSummary: p.outcomeSummary };
    this.tables.messages.set(this.tx, m.id, next);
    appendAuditRow(this.tables, this.tx, p.audit);
    return { ok: true, message: next };
  }

  async ackBatchIfHeld(p: { workspaceId: string; recipientId: string; items: readonly { messageId: string; leaseId: string; outcomeSummary: string | null; audit: NewAuditEntry }[]; caller?: CallerGuard | null }): Promise<LeaseWriteResult[]> {
    const results: LeaseWriteResult[] = [];
    for (const item of p.items) results.push(await this.ackIfHeld({ workspaceId: p.workspaceId, recipientId: p.recipientId, ...item, caller: p.caller ?? null }));
    return results;
  }

  async nackIfHeld(p: { workspaceId: string; messageId: string; recipientId: string; leaseId: string; redeliverAfterMs: number; minIntervalMs: number; audit: NewAuditEntry }): Promise<LeaseWriteResult> {
    const now = this.nowMs();
    const m = this.owned(p.workspaceId, p.messageId, p.recipientId);
    const ok = m !== null && this.isLive(m, p.leaseId, now) && (m.lastNackedAt === null || now - m.lastNackedAt.getTime() >= p.minIntervalMs) && now + p.redeliverAfterMs < m.expiresAt.getTime();
    if (!m || !ok) return { ok: false, snapshot: m, now: new Date(now) };
    const next: MessageRecord = { ...m, state: "pending", visibleAt: new Date(now + p.redeliverAfterMs), lastNackedAt: new Date(now), leaseId: null, leaseClaimedAt: null, leaseExtensions: 0, lastExtendedAt: null };
    this.tables.messages.set(this.tx, m.id, next);
    appendAuditRow(this.tables, this.tx, p.audit);
    if (p.redeliverAfterMs === 0) this.wake(m.workspaceId, m.recipientId);
    return { ok: true, message: next };
  }

  async extendIfHeld(p: { workspaceId: string; messageId: string; recipientId: string; leaseId: string; visibilityTimeoutMs: number; minIntervalMs: number; maxExtensions: number; cumulativeCapMs: number; audit: NewAuditEntry }): Promise<LeaseWriteResult> {
    const now = this.nowMs();
    const m = this.owned(p.workspaceId, p.messageId, p.recipientId);
    if (!m || !this.isLive(m, p.leaseId, now)) return { ok: false, snapshot: m, now: new Date(now) };
    const claimedAt = (m.leaseClaimedAt ?? new Date(now)).getTime();
    const newExpiry = Math.min(now + p.visibilityTimeoutMs, claimedAt + p.cumulativeCapMs);
    const ok = (m.lastExtendedAt === null || now - m.lastExtendedAt.getTime() >= p.minIntervalMs) && m.leaseExtensions < p.maxExtensions && newExpiry > m.visibleAt.getTime() && newExpiry <= m.expiresAt.getTime();
    if (!ok) return { ok: false, snapshot: m, now: new Date(now) };
    const next: MessageRecord = { ...m, visibleAt: new Date(newExpiry), leaseExtensions: m.leaseExtensions + 1, lastExtendedAt: new Date(now) };
    this.tables.messages.set(this.tx, m.id, next);
    appendAuditRow(this.tables, this.tx, p.audit);
    return { ok: true, message: next };
  }

  async handOffIfHeld(p: { workspaceId: string; messageId: string; recipientId: string; leaseId: string; to: { accountId: string; friendlyName: string }; audit: NewAuditEntry }): Promise<HandOffResult> {
    const target = this.deps.accounts ? await this.deps.accounts.findById({ workspaceId: p.workspaceId, accountId: p.to.accountId }) : null;
    // From here on no await: the guards and the write are atomic.
    if (p.to.accountId === p.recipientId || (this.deps.accounts && (target === null || target.state === "revoked" || target.friendlyName !== p.to.friendlyName))) return { kind: "recipient_gone" };
    const now = this.nowMs();
    const m = this.owned(p.workspaceId, p.messageId, p.recipientId);
    if (!m || !this.isLive(m, p.leaseId, now)) return { kind: "refused", snapshot: m, now: new Date(now) };
    const next: MessageRecord = { ...m, recipientId: p.to.accountId, recipientName: p.to.friendlyName, state: "pending", visibleAt: new Date(now), leaseId: null, leaseClaimedAt: null, leaseExtensions: 0, lastExtendedAt: null, lastNackedAt: null };
    this.tables.messages.set(this.tx, m.id, next);
    appendAuditRow(this.tables, this.tx, p.audit);
    this.wake(m.workspaceId, p.to.accountId);
    return { kind: "handed_off", message: next };
  }

  async decideApproval(p: { workspaceId: string; messageId: string; approve: boolean; audit: NewAuditEntry }): Promise<{ kind: "decided"; message: MessageRecord; now: Date } | { kind: "refused"; snapshot: MessageRecord | null; now: Date }> {
    const now = this.nowMs();
    const m = this.tables.messages.get(p.messageId);
    const mine = m !== undefined && m.workspaceId === p.workspaceId ? m : null;
    if (mine === null || mine.state !== "held_for_approval" || mine.expiresAt.getTime() <= now) return { kind: "refused", snapshot: mine, now: new Date(now) };
    const next: MessageRecord = p.approve ? { ...mine, state: "pending", visibleAt: new Date(Math.max(mine.visibleAt.getTime(), now)) } : { ...mine, state: "rejected" };
    this.tables.messages.set(this.tx, mine.id, next);
    appendAuditRow(this.tables, this.tx, p.audit);
    if (p.approve) {
      if (this.deps.webhooks) writeSendOutboxRows(this.deps.webhooks, this.tx, this.deps.ids, next);
      if (next.visibleAt.getTime() <= now) this.wake(next.workspaceId, next.recipientId);
    }
    return { kind: "decided", message: next, now: new Date(now) };
  }

  async countHeldForApproval(p: { workspaceId: string; limit: number }): Promise<number> {
    return Math.min(p.limit, (await this.listHeldForApproval({ workspaceId: p.workspaceId, after: null, limit: p.limit })).length);
  }

  async listHeldForApproval(p: { workspaceId: string; after: string | null; limit: number }): Promise<MessageRecord[]> {
    const now = this.nowMs();
    const after = p.after;
    return this.tables.messages
      .values()
      .filter((m) => m.workspaceId === p.workspaceId && m.state === "held_for_approval" && m.expiresAt.getTime() > now && (after === null || m.id > after))
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, p.limit + 1);
  }

  async findForParticipant(p: { workspaceId: string; messageId: string; accountId: string | null }): Promise<MessageRecord | null> {
    const m = this.tables.messages.get(p.messageId);
    return m && m.workspaceId === p.workspaceId && (p.accountId === null || m.senderId === p.accountId || m.recipientId === p.accountId) ? m : null;
  }

  async now(): Promise<Date> {
    return this.deps.clock.now();
  }

  async listForParticipant(p: { workspaceId: string; accountId: string | null; role: "sent" | "received" | "any"; state: MessageState | null; match?: MessageMatch; after: string | null; limit: number }): Promise<MessageRecord[]> {
    const now = this.deps.clock.now();
    const after = p.after;
    return this.tables.messages
      .values()
      .filter((m) => m.workspaceId === p.workspaceId)
      .filter((m) => (p.accountId === null ? true : p.role === "sent" ? m.senderId === p.accountId : p.role === "received" ? m.recipientId === p.accountId : m.senderId === p.accountId || m.recipientId === p.accountId))
      .filter((m) => p.state === null || shownState(m, now) === p.state)
      .filter((m) => (p.match?.recipientName ?? null) === null || m.recipientName === p.match?.recipientName)
      .filter((m) => (p.match?.senderName ?? null) === null || m.senderName === p.match?.senderName)
      .filter((m) => (p.match?.template ?? null) === null || m.template === p.match?.template)
      .filter((m) => (p.match?.search ?? null) === null || m.id === p.match?.search || m.correlationId === p.match?.search)
      .filter((m) => after === null || m.id < after)
      .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .slice(0, p.limit + 1);
  }

  async listThread(p: { workspaceId: string; threadId: string; accountId: string | null; after: string | null; limit: number }): Promise<MessageRecord[]> {
    const after = p.after;
    return this.tables.messages
      .values()
      .filter((m) => m.workspaceId === p.workspaceId && threadIdOf(m) === p.threadId)
      .filter((m) => p.accountId === null || m.senderId === p.accountId || m.recipientId === p.accountId)
      .filter((m) => after === null || m.id > after)
      .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .slice(0, p.limit + 1);
  }

  async countWaiting(p: { workspaceId: string; now: Date }): Promise<WaitingCounts> {
    const byRecipient = new Map<string, { pending: number; held: number; sentAs: string }>();
    let deadLettered = 0;
    for (const m of this.tables.messages.values()) {
      if (m.workspaceId !== p.workspaceId) continue;
      if (m.state === "dead_lettered") deadLettered += 1;
      if ((m.state !== "pending" && m.state !== "held") || m.expiresAt.getTime() <= p.now.getTime()) continue;
      const counts = byRecipient.get(m.recipientId) ?? { pending: 0, held: 0, sentAs: m.recipientName };
      // A held message whose lease ran out is pending again (shownState).
      counts[shownState(m, p.now) === "held" ? "held" : "pending"] += 1;
      byRecipient.set(m.recipientId, counts);
    }
    const recipients = await Promise.all(
      [...byRecipient].map(async ([accountId, { pending, held, sentAs }]) => ({ accountId, friendlyName: (await this.deps.accounts?.findById({ workspaceId: p.workspaceId, accountId }))?.friendlyName ?? sentAs, pending, held })),
    );
    return { recipients: recipients.sort((a, b) => (a.friendlyName < b.friendlyName ? -1 : a.friendlyName > b.friendlyName ? 1 : 0)), deadLettered };
  }

  async inboxOf(p: { workspaceId: string; recipientId: string; countLimit: number }): Promise<InboxSnapshot> {
    const now = this.deps.clock.now();
    const claimable: Record<Priority, number> = { low: 0, normal: 0, high: 0, urgent: 0 };
    let oldest: MessageRecord | null = null;
    for (const m of this.tables.messages.values()) {
      if (m.workspaceId !== p.workspaceId || m.recipientId !== p.recipientId || !isClaimableAt(m, now)) continue;
      claimable[m.priority] = Math.min(p.countLimit, claimable[m.priority] + 1);
      if (oldest === null || m.acceptedAt.getTime() < oldest.acceptedAt.getTime() || (m.acceptedAt.getTime() === oldest.acceptedAt.getTime() && m.id < oldest.id)) oldest = m;
    }
    return { claimable, oldest: oldest === null ? null : { ...oldest, payload: null }, now };
  }

  async becameClaimable(p: { recipients: readonly WatchedRecipient[]; after: Date; scanLimit: number }): Promise<{ due: WatchedRecipient[]; nextAt: Date | null; now: Date }> {
    const now = this.deps.clock.now();
    const due: WatchedRecipient[] = [];
    let nextAt: Date | null = null;
    for (const r of p.recipients.slice(0, 1_000)) {
      const live = [...this.tables.messages.values()]
        .filter((m) => m.workspaceId === r.workspaceId && m.recipientId === r.recipientId && (m.state === "pending" || m.state === "held") && m.expiresAt.getTime() > now.getTime())
        .sort((a, b) => PRIORITY_RANK[b.priority] - PRIORITY_RANK[a.priority] || a.acceptedAt.getTime() - b.acceptedAt.getTime() || (a.id < b.id ? -1 : 1))
        .slice(0, p.scanLimit)
        .filter(isDeferred);
      if (live.some((m) => m.visibleAt.getTime() > p.after.getTime() && m.visibleAt.getTime() <= now.getTime())) due.push(r);
      for (const m of live) if (m.visibleAt.getTime() > now.getTime() && (nextAt === null || m.visibleAt.getTime() < nextAt.getTime())) nextAt = m.visibleAt;
    }
    return { due, nextAt, now };
  }

  async listDeadLettered(p: { workspaceId: string; after: string | null; limit: number }): Promise<MessageRecord[]> {
    const after = p.after;
    return this.tables.messages
      .values()
      .filter((m) => m.workspaceId === p.workspaceId && m.state === "dead_lettered" && (after === null || m.id < after))
      .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
      .slice(0, p.limit + 1);
  }

  async release(p: { workspaceId: string; messageId: string; audit: NewAuditEntry }): Promise<MessageRecord | null> {
    const m = this.tables.messages.get(p.messageId);
    if (!m || m.workspaceId !== p.workspaceId || m.state !== "dead_lettered") return null;
    const next: MessageRecord = { ...m, state: "pending", deliveryCount: 0, visibleAt: new Date(this.nowMs()), deadLetteredAt: null, leaseId: null, leaseClaimedAt: null, leaseExtensions: 0, lastExtendedAt: null };
    this.tables.messages.set(this.tx, m.id, next);
    appendAuditRow(this.tables, this.tx, p.audit);
    this.wake(m.workspaceId, m.recipientId);
    return next;
  }

  async purge(p: { workspaceId: string; messageId: string; audit: NewAuditEntry }): Promise<boolean> {
    const m = this.tables.messages.get(p.messageId);
    if (!m || m.workspaceId !== p.workspaceId || m.state !== "dead_lettered") return false;
    this.tables.messages.delete(this.tx, m.id);
    appendAuditRow(this.tables, this.tx, p.audit);
    return true;
  }

  async withhold(p: { workspaceId: string; messageId: string; audit: NewAuditEntry }): Promise<{ kind: "withheld"; message: MessageRecord } | { kind: "already_withheld" } | { kind: "not_found" }> {
    const m = this.tables.messages.get(p.messageId);
    if (!m || m.workspaceId !== p.workspaceId) return { kind: "not_found" };
    if (m.state === "withheld") return { kind: "already_withheld" };
    const next: MessageRecord = { ...m, state: "withheld", leaseId: m.state === "held" ? null : m.leaseId };
    this.tables.messages.set(this.tx, m.id, next);
    this.tables.withheldFrom.set(this.tx, m.id, m.state);
    const outbox = this.deps.webhooks?.outbox;
    for (const d of outbox?.values() ?? []) {
      if (d.workspaceId === m.workspaceId && d.messageId === m.id && (d.state === "pending" || d.state === "retrying")) {
        outbox?.set(this.tx, `${d.workspaceId}/${d.id}`, { ...d, state: "dead", deadAt: new Date(this.nowMs()), lastError: "legally_withheld", claimToken: null });
      }
    }
    appendAuditRow(this.tables, this.tx, p.audit);
    return { kind: "withheld", message: next };
  }

  async restoreWithheld(p: { workspaceId: string; messageId: string; audit: NewAuditEntry }): Promise<{ kind: "restored"; message: MessageRecord } | { kind: "not_withheld" }> {
    const m = this.tables.messages.get(p.messageId);
    const from = this.tables.withheldFrom.get(p.messageId);
    if (!m || m.workspaceId !== p.workspaceId || m.state !== "withheld" || from === undefined) return { kind: "not_withheld" };
    // A held message's lease ended with the withholding: it comes back claimable at once.
    const next: MessageRecord = from === "held" ? { ...m, state: "pending", visibleAt: new Date(this.nowMs()), leaseId: null } : { ...m, state: from };
    this.tables.messages.set(this.tx, m.id, next);
    this.tables.withheldFrom.delete(this.tx, m.id);
    appendAuditRow(this.tables, this.tx, p.audit);
    if (next.state === "pending") this.wake(m.workspaceId, m.recipientId);
    return { kind: "restored", message: next };
  }

  async expireDue(p: { auditIds: readonly string[] }): Promise<number> {
    const now = this.nowMs();
    const due = this.tables.messages
      .values()
      .filter((m) => LIVE_STATES.includes(m.state) && m.expiresAt.getTime() <= now)
      .slice(0, p.auditIds.length);
    due.forEach((m, i) => {
      this.tables.messages.set(this.tx, m.id, { ...m, state: "expired", leaseId: m.state === "held" ? m.leaseId : null });
      appendAuditRow(this.tables, this.tx, storeAudit(p.auditIds[i] as string, m, new Date(now), "message.expired", null, null, null, {}));
    });
    return due.length;
  }
}

function storeAudit(id: string, m: MessageRecord, at: Date, activity: string, actorAccountId: string | null, actorCredentialId: string | null, requestId: string | null, details: Record<string, unknown>): NewAuditEntry {
  return { id, workspaceId: m.workspaceId, occurredAt: at, activity, actorAccountId, actorCredentialId, subjectType: "message", subjectId: m.id, messageId: m.id, details, operatorSignificant: false, requestId };
}
