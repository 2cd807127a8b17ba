import { malformed } from "../errors.ts";
import { PRIORITIES, type Priority } from "../messaging/message.ts";

// What an approval policy holds (DESIGN §2c): any of templates, recipients, senders and
// priorities; every populated dimension must match the send. Pure: the in-memory store, validate
// and the PostgreSQL send statement (which matches the same way in SQL) share these rules.

/** The kinds of workspace policy: one agents acknowledge, one that holds sends for a person's approval. */
export const POLICY_KINDS = ["acknowledgement", "approval"] as const;
/** A policy kind. */
export type PolicyKind = (typeof POLICY_KINDS)[number];

/** The sends an approval policy holds, and whether a person's approval needs a fresh step-up. */
export interface ApprovalHolds {
  /** Template names; null: any. */
  templates: string[] | null;
  /** Recipients' friendly names (as addressed); null: any. */
  recipients: string[] | null;
  /** Senders' friendly names; null: any. */
  senders: string[] | null;
  /** Priorities; null: any. */
  priorities: Priority[] | null;
  /** A person's session must have stepped up in the last five minutes to approve or reject. */
  requireStepUp: boolean;
}

/** Limits of an approval policy's dimensions. */
export const APPROVAL_LIMITS = {
  /** Values per dimension. */
  maxValues: 50,
  /** Longest template or friendly name. */
  maxValueLength: 200,
} as const;

/** What a send is matched on: the names as at send time. */
export interface HoldCandidate {
  template: string;
  recipientName: string;
  senderName: string;
  priority: Priority;
}

/** True when every populated dimension of `holds` matches the send. */
export function holdsSend(holds: ApprovalHolds, send: HoldCandidate): boolean {
  return (
    (holds.templates === null || holds.templates.includes(send.template)) &&
    (holds.recipients === null || holds.recipients.includes(send.recipientName)) &&
    (holds.senders === null || holds.senders.includes(send.senderName)) &&
    (holds.priorities === null || holds.priorities.includes(send.priority))
  );
}

function parseNames(value: unknown, field: string): string[] | null {
  if (value === undefined || value === null) return null;
  if (!Array.isArray(value) || value.length === 0 || value.length > APPROVAL_LIMITS.maxValues) throw malformed(`${field} must be a list of 1 to ${APPROVAL_LIMITS.maxValues} names.`, { field });
  for (const v of value) {
    if (typeof v !== "string" || v.length === 0 || v.length > APPROVAL_LIMITS.maxValueLength) throw malformed(`${field} must hold names of 1 to ${APPROVAL_LIMITS.maxValueLength} characters.`, { field });
  }
  return [...new Set(value as string[])];
}

/** The approval fields of a publish body. */
export interface ApprovalHoldsInput {
  templates?: unknown;
  recipients?: unknown;
  senders?: unknown;
  priorities?: unknown;
  require_step_up?: unknown;
}

/**
 * The holds of an approval policy from a publish body: at least one dimension populated (a
 * policy that holds every send of the workspace is named by its dimensions, never by omission).
 * @throws DomainError SVC_MALFORMED_REQUEST (details.field).
 */
export function parseApprovalHolds(input: ApprovalHoldsInput): ApprovalHolds {
  const priorities = parseNames(input.priorities, "priorities");
  if (priorities !== null && !priorities.every((p) => (PRIORITIES as readonly string[]).includes(p))) throw malformed(`priorities must hold ${PRIORITIES.join(", ")}.`, { field: "priorities", allowed: [...PRIORITIES] });
  if (input.require_step_up !== undefined && typeof input.require_step_up !== "boolean") throw malformed("require_step_up must be a boolean.", { field: "require_step_up" });
  const holds: ApprovalHolds = {
    templates: parseNames(input.templates, "templates"),
    recipients: parseNames(input.recipients, "recipients"),
    senders: parseNames(input.senders, "senders"),
    priorities: priorities as Priority[] | null,
    requireStepUp: input.require_step_up === true,
  };
  if (holds.templates === null && holds.recipients === null && holds.senders === null && holds.priorities === null) {
    throw malformed("An approval policy names what it holds: at least one of templates, recipients, senders, priorities.", { field: "templates" });
  }
  return holds;
}

/** True when the body names any approval dimension (refused on a policy of kind acknowledgement). */
export function namesApprovalFields(input: ApprovalHoldsInput): boolean {
  return input.templates !== undefined || input.recipients !== undefined || input.senders !== undefined || input.priorities !== undefined || input.require_step_up !== undefined;
}
