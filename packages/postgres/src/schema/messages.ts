import { sql } from "drizzle-orm";
import { check, index, integer, jsonb, pgTable, primaryKey, smallint, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Messages. `priority_rank` is PRIORITY_RANK of the priority (higher first). `visible_at` is when
 * a pending message becomes claimable, or when a held message's lease runs out. Columns the
 * database clock writes (leases, nacks, acks) keep now()'s full precision, so a message nacked
 * with no delay is claimable by the very next statement; columns the core writes hold
 * milliseconds, like a JavaScript Date.
 */
export const messages = pgTable(
  "messages",
  {
    workspaceId: text("workspace_id").notNull(),
    id: text("id").notNull(),
    senderId: text("sender_id").notNull(),
    senderName: text("sender_name").notNull(),
    recipientId: text("recipient_id").notNull(),
    recipientName: text("recipient_name").notNull(),
    template: text("template").notNull(),
    priorityRank: smallint("priority_rank").notNull(),
    correlationId: text("correlation_id"),
    payload: jsonb("payload").notNull(),
    state: text("state").notNull(),
    acceptedAt: timestamp("accepted_at", { withTimezone: true, precision: 3 }).notNull(),
    expiresAt: timestamp("expires_at", { withTimezone: true, precision: 3 }).notNull(),
    visibleAt: timestamp("visible_at", { withTimezone: true }).notNull(),
    deliveryCount: integer("delivery_count").notNull().default(0),
    leaseId: text("lease_id"),
    leaseClaimedAt: timestamp("lease_claimed_at", { withTimezone: true }),
    leaseExtensions: integer("lease_extensions").notNull().default(0),
    lastExtendedAt: timestamp("last_extended_at", { withTimezone: true }),
    lastNackedAt: timestamp("last_nacked_at", { withTimezone: true }),
    acknowledgedAt: timestamp("acknowledged_at", { withTimezone: true }),
    outcomeSummary: text("outcome_summary"),
    deadLetteredAt: timestamp("dead_lettered_at", { withTimezone: true }),
    /** The W3C traceparent stored at the send (DESIGN §2c Telemetry), handed on in envelopes and webhook deliveries; null when none. */
    traceparent: text("traceparent"),
    /** The state a withheld message had (DESIGN §2b); null unless state is 'withheld'. */
    withheldFromState: text("withheld_from_state"),
    /** The message this one answers (a send's reply_to, DESIGN §2c); null otherwise. */
    inReplyTo: text("in_reply_to"),
    /** The thread's first message; null when the message starts its thread (its id is the thread's). */
    threadId: text("thread_id"),
    /** The approval policy that held the send (DESIGN §2c); null when none did. */
    approvalPolicyId: text("approval_policy_id"),
  },
  (t) => [
    primaryKey({ name: "messages_pkey", columns: [t.workspaceId, t.id] }),
    // The claim index: exactly the dequeue order, holding only claimable rows, so acknowledged,
    // expired and dead-lettered messages leave it and a long-running queue does not slow down.
    index("messages_claim_idx")
      .on(t.workspaceId, t.recipientId, t.priorityRank.desc(), t.acceptedAt, t.id)
      .where(sql`state in ('pending', 'held')`),
    // The expiry sweep walks only live rows (a message held for approval expires too).
    index("messages_expiry_idx").on(t.expiresAt).where(sql`state in ('pending', 'held', 'held_for_approval')`),
    // What waits for a person's approval, per workspace, oldest first.
    index("messages_held_for_approval_idx").on(t.workspaceId, t.id).where(sql`state = 'held_for_approval'`),
    index("messages_recipient_idx").on(t.workspaceId, t.recipientId, t.id),
    index("messages_sender_idx").on(t.workspaceId, t.senderId, t.id),
    // A thread's replies (its first message is found by the primary key); only replies are
    // indexed, so a send that starts a thread writes no entry here.
    index("messages_thread_idx").on(t.workspaceId, t.threadId, t.id).where(sql`thread_id is not null`),
    index("messages_dead_lettered_idx").on(t.workspaceId, t.id).where(sql`state = 'dead_lettered'`),
    check("messages_state_check", sql`${t.state} in ('pending', 'held', 'acknowledged', 'expired', 'dead_lettered', 'withheld', 'held_for_approval', 'rejected')`),
    check("messages_withheld_from_check", sql`(${t.state} = 'withheld') = (${t.withheldFromState} is not null)`),
    check("messages_priority_rank_check", sql`${t.priorityRank} between 0 and 3`),
  ],
);
