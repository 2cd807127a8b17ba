import type { AiAccount } from "../access/model.ts";
import type { NewAuditEntry } from "../audit/audit-entry.ts";
import { IDEMPOTENCY_RETENTION_MS, type IdempotencyRecord } from "../idempotency/idempotency-record.ts";
import type { NewMessage } from "../messaging/message.ts";
import { DAY_MS } from "../time/duration.ts";
import { fixtureId } from "./access-fixtures.ts";

/**
 * A message from `sender` to `recipient` accepted at `now`: template `directive`, priority
 * normal, visible at once, expiring after 7 days (override any field).
 */
export function makeNewMessage(p: { sender: AiAccount; recipient: AiAccount; now: Date }, overrides: Partial<NewMessage> = {}): NewMessage {
  return {
    id: fixtureId(),
    workspaceId: p.recipient.workspaceId,
    senderId: p.sender.id,
    senderName: p.sender.friendlyName,
    recipientId: p.recipient.id,
    recipientName: p.recipient.friendlyName,
    template: "directive",
    priority: "normal",
    correlationId: null,
    payload: { directive_kind: "task", summary: "Do the thing", instructions: "Step one, then step two." },
    acceptedAt: p.now,
    visibleAt: p.now,
    expiresAt: new Date(p.now.getTime() + 7 * DAY_MS),
    traceparent: null,
    inReplyTo: null,
    threadId: null,
    ...overrides,
  };
}

/** An audit row of `workspaceId` about `messageId` (or about nothing), occurring at `at`. */
export function makeAuditEntry(workspaceId: string, overrides: Partial<NewAuditEntry> = {}): NewAuditEntry {
  const id = overrides.id ?? fixtureId();
  return {
    id,
    workspaceId,
    occurredAt: new Date("2026-01-01T00:00:00.000Z"),
    activity: "test.event",
    actorAccountId: null,
    actorCredentialId: null,
    subjectType: "test",
    subjectId: id,
    messageId: null,
    details: { n: 1 },
    operatorSignificant: false,
    requestId: null,
    ...overrides,
  };
}

/** An in-progress idempotency record created at `now`, retained 24 h. */
export function makeIdempotencyRecord(p: { workspaceId: string; accountId: string; now: Date }, overrides: Partial<IdempotencyRecord> = {}): IdempotencyRecord {
  return {
    workspaceId: p.workspaceId,
    accountId: p.accountId,
    key: `key-${fixtureId()}`,
    fingerprint: "f".repeat(64),
    requestId: `req-${fixtureId()}`,
    status: null,
    bodyText: null,
    createdAt: p.now,
    expiresAt: new Date(p.now.getTime() + IDEMPOTENCY_RETENTION_MS),
    ...overrides,
  };
}
